// Builds better-sqlite3 for Electron's ABI, next to (not over) the Node build in node_modules.
//
// better-sqlite3 is the one native module the main process loads that is not Node-API (libnut and sharp
// are Node-API and load in any runtime). Rebuilding it in place (`electron-builder install-app-deps`)
// would break everything that runs on plain Node afterwards: `npm test`, `npm run web`, the CLI. So the
// Electron build goes to node_modules/.cache/deskhand-electron/better_sqlite3.node, and the desktop app
// opens its database with better-sqlite3's `nativeBinding` option pointing there. electron-builder ships
// the same file in resources/native/ (electron-builder.yml, extraResources).
//
//   node build/electron-native.mjs            build unless the cached binary matches (Electron version,
//                                            better-sqlite3 version, platform, arch)
//   node build/electron-native.mjs --force    build again
//   node build/electron-native.mjs --print    print the binary's path and exit
//
// How: copy node_modules/better-sqlite3 to a temporary folder, then (1) fetch the project's prebuilt
// binary for this Electron with prebuild-install, or (2) compile it with node-gyp against Electron's
// headers (needs Python 3 and a C++ toolchain). Both need the internet (GitHub, electronjs.org).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));

export const CACHE_DIR = join(root, 'node_modules', '.cache', 'deskhand-electron');
export const BINARY = join(CACHE_DIR, 'better_sqlite3.node');
const STAMP = join(CACHE_DIR, 'better_sqlite3.json');

function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`));
}

function wanted() {
  return {
    electron: JSON.parse(readFileSync(join(packageDir('electron'), 'package.json'), 'utf8')).version,
    betterSqlite3: JSON.parse(readFileSync(join(packageDir('better-sqlite3'), 'package.json'), 'utf8')).version,
    platform: process.platform,
    arch: process.env.npm_config_arch || process.arch,
  };
}

function upToDate(want) {
  if (!existsSync(BINARY) || !existsSync(STAMP)) return false;
  try {
    const have = JSON.parse(readFileSync(STAMP, 'utf8'));
    return Object.entries(want).every(([key, value]) => have[key] === value);
  } catch {
    return false;
  }
}

function run(title, args, cwd) {
  console.log(`Deskhand: ${title}…`);
  const result = spawnSync(process.execPath, args, { cwd, stdio: 'inherit', env: process.env });
  return result.status === 0;
}

function build(want) {
  const work = mkdtempSync(join(tmpdir(), 'deskhand-electron-native-'));
  const moduleDir = join(work, 'better-sqlite3');
  try {
    cpSync(packageDir('better-sqlite3'), moduleDir, {
      recursive: true,
      filter: (source) => !relative(packageDir('better-sqlite3'), source).startsWith('build'),
    });
    const built = join(moduleDir, 'build', 'Release', 'better_sqlite3.node');
    const target = [`--runtime=electron`, `--target=${want.electron}`, `--arch=${want.arch}`];
    const fetched =
      run(`fetching better-sqlite3 ${want.betterSqlite3} for Electron ${want.electron}`, [
        join(packageDir('prebuild-install'), 'bin.js'),
        ...target,
        `--platform=${want.platform}`,
        '--verbose',
      ], moduleDir) && existsSync(built);
    const compiled =
      fetched ||
      (run('no prebuilt binary; compiling better-sqlite3 against Electron headers', [
        join(packageDir('node-gyp'), 'bin', 'node-gyp.js'),
        'rebuild',
        '--release',
        `--target=${want.electron}`,
        `--arch=${want.arch}`,
        '--dist-url=https://electronjs.org/headers',
      ], moduleDir) && existsSync(built));
    if (!compiled) return false;
    mkdirSync(CACHE_DIR, { recursive: true });
    copyFileSync(built, BINARY);
    writeFileSync(STAMP, `${JSON.stringify(want, null, 2)}\n`);
    return true;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const want = wanted();
  if (process.argv.includes('--print')) {
    console.log(BINARY);
  } else if (!process.argv.includes('--force') && upToDate(want)) {
    console.log(`Deskhand: better-sqlite3 for Electron ${want.electron} is ready (${relative(root, BINARY)})`);
  } else if (!build(want)) {
    console.error(
      `Deskhand: could not get better-sqlite3 ${want.betterSqlite3} for Electron ${want.electron} (${want.platform}-${want.arch}).\n` +
        'It needs the internet (github.com for a prebuilt binary, electronjs.org for headers) and, to compile, Python 3 and a C++ toolchain.\n' +
        'Browser mode needs none of this: npm run web',
    );
    process.exit(1);
  } else {
    console.log(`Deskhand: better-sqlite3 for Electron ${want.electron} written to ${relative(root, BINARY)}`);
  }
}
