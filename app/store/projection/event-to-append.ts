/** An event as the store writes it; the caller has validated it against the shared schemas. */
export interface EventToAppend {
  type: string;
  receivedAt: Date;
  trigger: string;
  pullRequest: number | null;
  baseRef: string | null;
  metadata: Record<string, unknown>;
}
