/**
 * A safety setting's pattern as the policy runs it: case-insensitive and Unicode-aware, or in the
 * older dialect when only that one parses it ("\-" and "\ " are errors with the u flag). Throws a
 * SyntaxError, with the Unicode dialect's reason, when it is no regular expression at all.
 */
export function compilePattern(source: string): RegExp {
  try {
    return new RegExp(source, 'iu');
  } catch (unicodeError) {
    try {
      return new RegExp(source, 'i');
    } catch {
      throw unicodeError;
    }
  }
}
