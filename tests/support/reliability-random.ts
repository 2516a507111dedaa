/**
 * A small seeded PRNG (mulberry32) for generated reliability cases: the same seed gives the same cases,
 * so a failure names its seed and can be replayed with `DESKHAND_SEED=<seed>`.
 */
export interface Random {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  /** `length` random code points from the whole Unicode range, minus the characters in `exclude`. */
  unicode(length: number, exclude?: string): string;
  /** `length` characters from `alphabet`. */
  chars(length: number, alphabet: string): string;
}

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const random: Random = {
    seed,
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    },
    unicode(length, exclude = '') {
      const banned = new Set(Array.from(exclude));
      let out = '';
      let count = 0;
      while (count < length) {
        // Mostly the Basic Multilingual Plane (lone surrogates included), now and then an astral character.
        const code = random.chance(0.1) ? int(0x10000, 0x10ffff) : int(0, 0xffff);
        const char = String.fromCodePoint(code);
        if (banned.has(char)) continue;
        out += char;
        count++;
      }
      return out;
    },
    chars(length, alphabet) {
      let out = '';
      for (let i = 0; i < length; i++) out += alphabet[int(0, alphabet.length - 1)];
      return out;
    },
  };
  return random;
}

/** The seed for this run: `DESKHAND_SEED` when set (to replay a failure), otherwise `fallback`. */
export function seedFromEnv(fallback: number): number {
  const raw = process.env.DESKHAND_SEED;
  if (raw === undefined || raw === '') return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`DESKHAND_SEED must be a whole number, got '${raw}'`);
  return seed;
}

/** True when `npm run soak` runs the suite (more runs, more messages). */
export function soaking(): boolean {
  return process.env.DESKHAND_SOAK === '1';
}
