import type { PostComment } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { renderReply } from '../../render/comment.ts';

/**
 * Posts the comment once. Its body carries the effect's key in an HTML comment (invisible on
 * GitHub), so a second run, after an answer that was lost, finds it and posts nothing.
 */
export async function executePostComment(
  effect: PostComment,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  const marker = `<!-- trainyard:${effect.key.replaceAll('--', '- -')} -->`;
  const comments = await client.listComments(effect.number);
  if (comments.some((comment) => comment.body.includes(marker))) return [];
  await client.createComment({ number: effect.number, body: `${renderReply(effect.reply)}\n\n${marker}` });
  return [];
}
