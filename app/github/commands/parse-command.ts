import { closestName } from '../../config/closest-name.ts';

/*
 * The comment commands (`@<app-slug> queue [rule]`, `dequeue`, `requeue [rule]`, `refresh`), parsed
 * from a comment body. Pure; modelled on bors's command/parser.rs: a command is one line that
 * starts with the mention, and what GitHub renders as a quote, code or an HTML comment is never
 * a command (people quote and document commands all the time).
 */

export const COMMAND_NAMES = ['queue', 'dequeue', 'requeue', 'refresh'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export type Command =
  /** `queueName` null: the first queue rule that accepts the pull request. */
  { name: 'queue' | 'requeue'; queueName: string | null } | { name: 'dequeue' | 'refresh' };

/** Why a line addressed to the app is not a command; app/github/render/comment.ts words it. */
export type CommandProblem =
  | { kind: 'missing_command' }
  | { kind: 'unknown_command'; word: string; suggestion: CommandName | null }
  | { kind: 'unexpected_argument'; command: CommandName; argument: string };

export type ParsedComment =
  /** Nothing addressed to the app: the comment is not for us. */
  { kind: 'none' } | { kind: 'command'; command: Command } | { kind: 'invalid'; problem: CommandProblem };

/**
 * The first line addressed to `@<appSlug>` decides (later ones are ignored, so a comment cannot
 * queue and dequeue at once). The slug matches case-insensitively, as GitHub logins do, with or
 * without the `[bot]` suffix of the app's account.
 */
export function parseCommand(body: string, appSlug: string): ParsedComment {
  const mention = new RegExp(`^@${escapeRegExp(appSlug)}(?:\\[bot\\])?(?=\\s|$)`, 'i');
  for (const line of commandCandidates(body)) {
    const match = mention.exec(line);
    if (match === null) continue;
    return parseWords(line.slice(match[0].length).trim().split(/\s+/).filter(Boolean));
  }
  return { kind: 'none' };
}

function parseWords(words: string[]): ParsedComment {
  const [first, ...args] = words;
  if (first === undefined) return invalid({ kind: 'missing_command' });
  const word = first.toLowerCase();
  if (!isCommandName(word)) {
    const suggestion = closestName(word, COMMAND_NAMES);
    return invalid({ kind: 'unknown_command', word: first, suggestion: (suggestion as CommandName) ?? null });
  }
  // queue and requeue take one optional rule name; the others take nothing.
  const allowed = word === 'queue' || word === 'requeue' ? 1 : 0;
  const extra = args[allowed];
  if (extra !== undefined) return invalid({ kind: 'unexpected_argument', command: word, argument: extra });
  if (word === 'queue' || word === 'requeue') {
    return { kind: 'command', command: { name: word, queueName: args[0] ?? null } };
  }
  return { kind: 'command', command: { name: word } };
}

function invalid(problem: CommandProblem): ParsedComment {
  return { kind: 'invalid', problem };
}

function isCommandName(word: string): word is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(word);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The lines GitHub renders as plain text, without their indentation: lines in fenced code
 * blocks, HTML comments, block quotes and indented code (4 spaces or a tab) are left out.
 */
function* commandCandidates(body: string): Generator<string> {
  let fence: string | null = null;
  let inComment = false;
  let inQuote = false;
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (fence !== null) {
      // A fence closes with the same character, at least as long, and nothing after it.
      const close = FENCE.exec(line)?.[1];
      if (
        close !== undefined &&
        close[0] === fence[0] &&
        close.length >= fence.length &&
        line.trim() === close
      )
        fence = null;
      continue;
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    const open = FENCE.exec(line);
    if (open !== null) {
      fence = open[1]!;
      continue;
    }
    // An HTML comment is invisible: drop the closed ones, and an unclosed one hides what follows.
    let visible = line.replace(/<!--.*?-->/g, '');
    const opened = visible.indexOf('<!--');
    if (opened >= 0) {
      visible = visible.slice(0, opened);
      inComment = true;
    }
    const text = visible.trimStart();
    // A line right under a quote, without a blank line between, continues the quote.
    inQuote = text.startsWith('>') || (inQuote && text !== '');
    if (inQuote || /^( {4}|\s*\t)/.test(visible)) continue;
    yield text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
