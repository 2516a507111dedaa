// `npm run soak`: the reliability suite (tests/reliability) with its long settings: 20 kill -9 runs of
// the host, 8 device client kills, 20 batches of generated hostile replies, 20,000 protocol messages,
// 150 databases damaged at random, 30 data folders whose disk fills up at a random moment.
//
//   node scripts/soak.mjs                      once, with the suite's fixed seeds
//   node scripts/soak.mjs --rounds 5           five times, each round with new seeds
//   DESKHAND_SEED=123 node scripts/soak.mjs    replay one seed (printed by a failing round)
//   node scripts/soak.mjs kill-host            only the files whose path contains "kill-host"
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
let rounds = 1;
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i]?.startsWith('--rounds=')) rounds = Number(args[i].slice('--rounds='.length));
  else filters.push(args[i]);
}
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error('usage: node scripts/soak.mjs [--rounds N] [file filter ...]');
  process.exit(2);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const fixedSeed = process.env.DESKHAND_SEED;
const failed = [];
const started = Date.now();
for (let round = 1; round <= rounds; round++) {
  // Round 1 uses the suite's own seeds (or DESKHAND_SEED); later rounds draw new ones.
  const seed = fixedSeed ?? (round === 1 ? undefined : String(Math.floor(Math.random() * 2 ** 31)));
  console.log(`\n== soak round ${round} of ${rounds}${seed ? ` (DESKHAND_SEED=${seed})` : ''}`);
  const env = { ...process.env, DESKHAND_SOAK: '1', ...(seed ? { DESKHAND_SEED: seed } : {}) };
  const result = spawnSync(npx, ['vitest', 'run', '--config', 'tests/reliability/vitest.config.ts', ...filters], { stdio: 'inherit', env });
  if (result.status !== 0) failed.push(seed ? `round ${round} (DESKHAND_SEED=${seed})` : `round ${round} (the suite's seeds)`);
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
if (failed.length) {
  console.error(`\nsoak: ${failed.length} of ${rounds} round(s) failed in ${minutes} min: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nsoak: ${rounds} round(s) passed in ${minutes} min`);
