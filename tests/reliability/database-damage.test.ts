import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BASE_SESSIONS, BASE_STEPS_EACH, type DamageRun } from '../support/database-damage-runs';
import { seedFromEnv, soaking } from '../support/reliability-random';

// A disk fault, a sync tool or a copy taken mid-write, RUNS times: random bytes written over random
// places of a database of 12 sessions, then opened as Deskhand opens it at start-up. It never fails to
// start, never hangs, keeps the damaged file as it was, and what it opens holds together: its integrity
// check passes, no row lacks its session, every session opens, and no session's step count would give
// a new step an index in use. Damage SQLite does not notice (free space, bytes of a text) changes nothing.
const SEED = seedFromEnv(0x5eed_0009);
const RUNS = soaking() ? 150 : 15;

const work = mkdtempSync(join(tmpdir(), 'deskhand-damage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe(`${RUNS} databases damaged at random (seed ${SEED})`, () => {
  it('each opens, repaired when SQLite finds the damage, holding together, with every session readable', () => {
    // A process of its own: a repair that never returned would hang this one, and the deadline ends it.
    const child = spawnSync(process.execPath, ['--import', 'tsx', resolve('tests/support/database-damage-runs.ts'), String(SEED), String(RUNS), work], {
      encoding: 'utf8',
      timeout: RUNS * 4_000 + 20_000,
    });
    expect(child.error, child.stderr).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    const runs = child.stdout.trim().split('\n').map((line) => JSON.parse(line) as DamageRun);
    expect(runs).toHaveLength(RUNS);
    for (const run of runs) expect(run.problems, `run ${run.run} (DESKHAND_SEED=${SEED}), damage ${JSON.stringify(run.damage)}`).toEqual([]);
    const repaired = runs.filter((run) => run.repaired);
    // The damage lands on pages SQLite checks often enough that most runs repair something.
    expect(repaired.length).toBeGreaterThan(RUNS / 3);
    const kept = repaired.reduce((sum, run) => sum + run.steps, 0) / (repaired.length * BASE_SESSIONS * BASE_STEPS_EACH);
    console.log(`${repaired.length} of ${RUNS} runs repaired; they kept ${(kept * 100).toFixed(1)} % of the steps`);
  });
});
