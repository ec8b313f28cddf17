/** Parses `<url>; rel="x", …` into rel → URL. */
export function parseLinkHeader(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (!match) throw new Error(`malformed Link entry: ${part}`);
    links[match[2]!] = match[1]!;
  }
  return links;
}
