/** Only web links survive; javascript:, data:, file: and relative URLs become no link at all. */
export function safeLinkUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : '';
  } catch {
    return '';
  }
}
