export const REDACTED_SECRET = '[redacted]';

/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes known secret values (API keys, tokens) from text before it is stored, shown or sent to a
 * model. The host's own process environment can be read by a command the agent runs, so whatever comes
 * back from the desktop is scrubbed, not only what Deskhand itself writes.
 */
export class SecretScrubber {
  constructor(
    private readonly secrets: () => Iterable<string | null | undefined>,
    /** Values known to be secrets (a password the user typed) may be shorter than a key found by its look. */
    private readonly minLength = MIN_SECRET_LENGTH,
  ) {}

  private values(): string[] {
    const unique = new Set<string>();
    for (const value of this.secrets()) if (value && value.length >= this.minLength) unique.add(value);
    // Longest first, so a key that contains another is removed whole.
    return [...unique].sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let clean = text;
    for (const value of this.values()) if (clean.includes(value)) clean = clean.split(value).join(REDACTED_SECRET);
    return clean;
  }

  /** Every string inside a plain value (objects, arrays), scrubbed; other values unchanged. */
  deep<T>(value: T): T {
    const values = this.values();
    if (!values.length) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') {
        let clean = item;
        for (const secret of values) if (clean.includes(secret)) clean = clean.split(secret).join(REDACTED_SECRET);
        return clean;
      }
      if (Array.isArray(item)) return item.map(walk);
      if (item && typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype) {
        return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
      }
      return item;
    };
    return walk(value) as T;
  }
}

const INLINE_SECRETS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED_SECRET}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED_SECRET],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g, REDACTED_SECRET],
  [/\b([A-Za-z0-9_]*(?:api[_-]?key|token|secret|password|passwd)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;]+)/gi, `$1$2${REDACTED_SECRET}`],
];

/** Masks secrets inside free text: bearer tokens, well-known key formats, `password=...` pairs. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of INLINE_SECRETS) out = out.replace(pattern, replacement);
  return out;
}
