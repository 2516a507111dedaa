/**
 * A model's Markdown as one plain line of text, for places that show no formatting (the status line,
 * window titles): links and images become their words, and the marks models use most (**bold**,
 * __bold__, `code`, headings, list bullets) go. Single * and _ stay: in "2*3*4" or "file_name_1" they
 * are text.
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '• ')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
