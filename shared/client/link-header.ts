/** The RFC 8288 `Link` header of a log page: rel → absolute URL. */
export type PageLinks = Partial<Record<'first' | 'prev' | 'next' | 'last', string>>;

export function parsePageLinks(header: string | null | undefined): PageLinks {
  const links: PageLinks = {};
  if (!header) return links;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="(first|prev|next|last)"$/.exec(part.trim());
    if (match) links[match[2] as keyof PageLinks] = match[1]!;
  }
  return links;
}
