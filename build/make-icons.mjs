// Renders the app and tray icons from SVG with sharp (already a dependency). The PNGs are committed;
// run `node build/make-icons.mjs` after changing a drawing.
//   build/icon.png                 1024x1024, electron-builder makes .icns/.ico and Linux sizes from it
//   build/tray/icon.png            512x512, the Linux window icon of packaged builds
//   build/tray/tray-<state>.png    32x32 tray icons (idle, acting, waiting, paused) for Windows and Linux
//   build/tray/trayTemplate.png    16x16 (+ @2x) black template image for the macOS menu bar
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const here = dirname(fileURLToPath(import.meta.url));
const iconSvg = readFileSync(join(here, 'icon.svg'));

const POINTER = 'M9 4 L9 24 L14 19.5 L17.6 27.5 L21 26 L17.4 18.2 L24 17.8 Z';
const DOT = { idle: '#9e9e9e', acting: '#43a047', waiting: '#fb8c00', paused: '#1e88e5' };

function traySvg(color) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <path d="${POINTER}" fill="#ffffff" stroke="#1b1b1b" stroke-width="2" stroke-linejoin="round"/>
  <circle cx="25" cy="8" r="6" fill="${color}" stroke="#1b1b1b" stroke-width="1.5"/>
</svg>`;
}

const templateSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <path d="${POINTER}" fill="#000000"/>
  <circle cx="25" cy="8" r="5" fill="#000000"/>
</svg>`;

await sharp(iconSvg, { density: 144 }).resize(1024, 1024).png().toFile(join(here, 'icon.png'));
await sharp(iconSvg, { density: 72 }).resize(512, 512).png().toFile(join(here, 'tray', 'icon.png'));
for (const [state, color] of Object.entries(DOT)) {
  await sharp(Buffer.from(traySvg(color)), { density: 288 }).resize(32, 32).png().toFile(join(here, 'tray', `tray-${state}.png`));
}
await sharp(Buffer.from(templateSvg), { density: 144 }).resize(16, 16).png().toFile(join(here, 'tray', 'trayTemplate.png'));
await sharp(Buffer.from(templateSvg), { density: 288 }).resize(32, 32).png().toFile(join(here, 'tray', 'trayTemplate@2x.png'));
console.log('icons written to build/ and build/tray/');
