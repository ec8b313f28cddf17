/** RFC 8288 Link header with absolute URLs; entries with no cursor value are left out. */
export function buildLinkHeader(
  baseUrl: URL,
  links: { rel: 'first' | 'prev' | 'next' | 'last'; cursor: string | null | undefined }[],
): string {
  const parts: string[] = [];
  for (const { rel, cursor } of links) {
    if (cursor === undefined) continue;
    const url = new URL(baseUrl);
    url.searchParams.delete('cursor');
    if (cursor !== null) url.searchParams.set('cursor', cursor);
    parts.push(`<${url.toString()}>; rel="${rel}"`);
  }
  return parts.join(', ');
}
