// electron-builder afterPack hook: checks the Electron build of better-sqlite3 was packed, then sets
// Electron's fuses in the packaged executable, before it is signed.
//
// electron-builder 25 has no `electronFuses` option (it arrived in 26), so this hook flips them with
// @electron/fuses, Electron's own tool. Release builds must have them: a build that cannot flip them
// fails instead of shipping an unhardened app (DESKHAND_SKIP_FUSES=1 allows a local debug build only).
//
//   RunAsNode off                          ELECTRON_RUN_AS_NODE cannot turn the app into a plain Node
//                                          (the device client runs in a utility process instead)
//   EnableNodeOptionsEnvironmentVariable   NODE_OPTIONS cannot inject code
//   EnableNodeCliInspectArguments off      --inspect and friends cannot attach a debugger
//   EnableEmbeddedAsarIntegrityValidation  app.asar is checked against the hash electron-builder embeds
//                                          (macOS Info.plist, Windows resource; no effect on Linux)
//   OnlyLoadAppFromAsar on                 the app is loaded from app.asar only, so the check above
//                                          cannot be bypassed with an unpacked app folder
//   GrantFileProtocolExtraPrivileges off   file:// gets no extra powers (the app uses app:// only)
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** Fuse name (FuseV1Options key) -> wanted state. */
const FUSES = {
  RunAsNode: false,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  GrantFileProtocolExtraPrivileges: false,
};

/** electron-builder's Arch enum: 3 = arm64. */
const ARM64 = 3;

/** The packaged executable @electron/fuses patches, per platform. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const productFilename = packager.appInfo.productFilename;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${productFilename}.app`);
    case 'win32':
      return path.join(appOutDir, `${productFilename}.exe`);
    default:
      return path.join(appOutDir, packager.executableName);
  }
}

/** The options for @electron/fuses' flipFuses. */
function fuseOptions(fuses, context) {
  const options = { version: fuses.FuseVersion.V1 };
  for (const [name, enabled] of Object.entries(FUSES)) {
    const key = fuses.FuseV1Options[name];
    if (key === undefined) throw new Error(`@electron/fuses does not know the fuse ${name}; update it`);
    options[key] = enabled;
  }
  // Patching the binary breaks the ad-hoc signature Apple Silicon insists on; sign again, ad hoc.
  if ((context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas') && context.arch === ARM64) {
    options.resetAdHocDarwinSignature = true;
  }
  return options;
}

function loadFuses() {
  try {
    return require('@electron/fuses');
  } catch {
    throw new Error(
      'Packaged builds set Electron fuses with @electron/fuses, which is not installed: npm install --save-dev @electron/fuses@^1 ' +
        '(or DESKHAND_SKIP_FUSES=1 for a local debug build that must never be shipped).',
    );
  }
}

/** The packaged app's resources folder (where extraResources land). */
function resourcesDir(context) {
  if (context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas') {
    return path.join(executablePath(context), 'Contents', 'Resources');
  }
  return path.join(context.appOutDir, 'resources');
}

/** The app cannot open its database without better-sqlite3 built for Electron: fail the build, not the app. */
function checkNativeBinding(context) {
  const binding = path.join(resourcesDir(context), 'native', 'better_sqlite3.node');
  if (!fs.existsSync(binding)) {
    throw new Error(`${binding} is missing: run  node build/electron-native.mjs  before electron-builder (npm run dist does)`);
  }
}

async function afterPack(context, fuses) {
  checkNativeBinding(context);
  if (process.env.DESKHAND_SKIP_FUSES === '1') {
    console.warn('  • DESKHAND_SKIP_FUSES=1: Electron fuses NOT set. Do not ship this build.');
    return;
  }
  const api = fuses ?? loadFuses();
  const executable = executablePath(context);
  await api.flipFuses(executable, fuseOptions(api, context));
  console.log(`  • Electron fuses set in ${executable}: ${Object.entries(FUSES).map(([name, on]) => `${name}=${on ? 'on' : 'off'}`).join(', ')}`);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.FUSES = FUSES;
module.exports.executablePath = executablePath;
module.exports.fuseOptions = fuseOptions;
module.exports.resourcesDir = resourcesDir;
