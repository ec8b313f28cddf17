import * as vscode from 'vscode';
import { ApiError } from '../../../shared/client/api-client.ts';
import { commandIds } from '../ids.ts';
import { WhyDocuments } from '../queue/why-document.ts';
import { whyWaitingText } from '../queue/why-text.ts';
import { formatRepository } from '../repository.ts';
import { type CommandContext, showProblem } from './command-context.ts';
import { pickQueuedPullRequest, pullRequestArgument } from './pick-pull-request.ts';

/**
 * Why is this pull request waiting? For a tree node, a number, or one picked (the current
 * branch's first): its per-pull-request view read now, shown in plain sentences in a read-only
 * Markdown document. Resolves to the text shown, or null when nothing was shown.
 */
export function register(ctx: CommandContext): vscode.Disposable {
  const documents = new WhyDocuments();
  const why = async (arg?: unknown): Promise<string | null> => {
    const target =
      pullRequestArgument(arg) ??
      (await pickQueuedPullRequest(ctx.queue, 'Why is which pull request waiting?'));
    if (!target) return null;
    const outcome = await ctx.session.run((client, r) =>
      client.pull(r.owner, r.name, target.number).catch((error: unknown) => {
        // In no queue (any more): said as such, not as an unknown repository.
        if (error instanceof ApiError && error.kind === 'not_found' && /merge queue/.test(error.message))
          return null;
        throw error;
      }),
    );
    if (!outcome.ok) {
      void showProblem(outcome.problem, () => why(arg));
      return null;
    }
    const repository = formatRepository(outcome.repository);
    if (outcome.value === null) {
      void vscode.window.showInformationMessage(
        `#${target.number} is not in the merge queue of ${repository}: it merged, left, or was never queued. The Event Log says why it left.`,
      );
      return null;
    }
    const text = whyWaitingText(outcome.value, { repository, title: target.title });
    await documents.show(WhyDocuments.uri(repository, target.number), text);
    return text;
  };
  return vscode.Disposable.from(documents, vscode.commands.registerCommand(commandIds.whyWaiting, why));
}
