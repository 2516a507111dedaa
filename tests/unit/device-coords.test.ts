import { describe, expect, it } from 'vitest';
import {
  CoordinateError,
  fitLongEdge,
  identityGeometry,
  imageToScreen,
  intersect,
  screenToImage,
  subtract,
  visibleParts,
  type Rect,
  type ScreenshotGeometry,
} from '../../src-main/device/coords';

const geometry = (region: ScreenshotGeometry['region'], imageWidth: number, imageHeight: number): ScreenshotGeometry => ({
  region,
  imageWidth,
  imageHeight,
});

describe('imageToScreen', () => {
  it('is the identity before any screenshot', () => {
    const g = identityGeometry(1280, 800);
    expect(imageToScreen(g, { x: 0, y: 0 })).toEqual({ x: 0, y: 0 });
    expect(imageToScreen(g, { x: 640, y: 400 })).toEqual({ x: 640, y: 400 });
    expect(imageToScreen(g, { x: 1279, y: 799 })).toEqual({ x: 1279, y: 799 });
  });

  it.each([
    { scale: 1, region: { x: 0, y: 0, width: 1280, height: 800 } },
    { scale: 1.25, region: { x: 0, y: 0, width: 1600, height: 1000 } },
    { scale: 1.5, region: { x: 0, y: 0, width: 1920, height: 1200 } },
    { scale: 2, region: { x: 0, y: 0, width: 2560, height: 1600 } },
  ])('maps a 1280x800 image at scale $scale', ({ scale, region }) => {
    const g = geometry(region, 1280, 800);
    expect(imageToScreen(g, { x: 0, y: 0 })).toEqual({ x: 0, y: 0 });
    expect(imageToScreen(g, { x: 100, y: 40 })).toEqual({ x: Math.round(100 * scale), y: Math.round(40 * scale) });
    expect(imageToScreen(g, { x: 640, y: 400 })).toEqual({ x: region.width / 2, y: region.height / 2 });
    expect(imageToScreen(g, { x: 333, y: 777 })).toEqual({ x: Math.round(333 * scale), y: Math.round(777 * scale) });
    const last = imageToScreen(g, { x: 1279.9, y: 799.9 });
    expect(last.x).toBeLessThan(region.width);
    expect(last.y).toBeLessThan(region.height);
  });

  it('adds the region offset of a cropped window screenshot', () => {
    const g = geometry({ x: 300, y: 120, width: 640, height: 480 }, 640, 480);
    expect(imageToScreen(g, { x: 0, y: 0 })).toEqual({ x: 300, y: 120 });
    expect(imageToScreen(g, { x: 10, y: 20 })).toEqual({ x: 310, y: 140 });
  });

  it('handles a region with a negative origin (monitor left of and above the primary)', () => {
    const g = geometry({ x: -1920, y: -200, width: 1920, height: 1080 }, 1280, 720);
    expect(imageToScreen(g, { x: 0, y: 0 })).toEqual({ x: -1920, y: -200 });
    expect(imageToScreen(g, { x: 640, y: 360 })).toEqual({ x: -960, y: 340 });
    expect(imageToScreen(g, { x: 1279, y: 719 })).toEqual({ x: -1, y: 879 });
    expect(screenToImage(g, { x: -960, y: 340 })).toEqual({ x: 640, y: 360 });
  });

  it('rounds fractional image coordinates to whole screen pixels', () => {
    const g = geometry({ x: 0, y: 0, width: 1600, height: 1000 }, 1280, 800);
    const p = imageToScreen(g, { x: 10.4, y: 10.6 });
    expect(Number.isInteger(p.x) && Number.isInteger(p.y)).toBe(true);
    expect(p).toEqual({ x: 13, y: 13 });
  });

  it.each([
    { x: -1, y: 10 },
    { x: 10, y: -0.5 },
    { x: 1280, y: 10 },
    { x: 10, y: 800 },
    { x: 5000, y: 5000 },
    { x: Number.NaN, y: 1 },
  ])('rejects ($x, $y), outside a 1280x800 image, with a clear message', (point) => {
    const g = geometry({ x: 0, y: 0, width: 2560, height: 1600 }, 1280, 800);
    expect(() => imageToScreen(g, point)).toThrow(CoordinateError);
    expect(() => imageToScreen(g, point)).toThrow(/outside the last screenshot, which is 1280x800/);
  });
});

describe('screenToImage', () => {
  it('inverts imageToScreen at every scale', () => {
    for (const scale of [1, 1.25, 1.5, 2]) {
      const g = geometry({ x: 0, y: 0, width: 1280 * scale, height: 800 * scale }, 1280, 800);
      for (const point of [
        { x: 0, y: 0 },
        { x: 100, y: 40 },
        { x: 1279, y: 799 },
      ]) {
        expect(screenToImage(g, imageToScreen(g, point))).toEqual(point);
      }
    }
  });

  it('returns null outside the region', () => {
    const g = geometry({ x: 300, y: 120, width: 640, height: 480 }, 640, 480);
    expect(screenToImage(g, { x: 299, y: 200 })).toBeNull();
    expect(screenToImage(g, { x: 940, y: 200 })).toBeNull();
  });
});

describe('fitLongEdge', () => {
  it('downscales so the long edge fits, keeping the aspect ratio', () => {
    expect(fitLongEdge(2560, 1600, 1280)).toEqual({ width: 1280, height: 800 });
    expect(fitLongEdge(1600, 2560, 1280)).toEqual({ width: 800, height: 1280 });
    expect(fitLongEdge(1920, 1080, 1280)).toEqual({ width: 1280, height: 720 });
  });

  it('never upscales', () => {
    expect(fitLongEdge(1280, 800, 1280)).toEqual({ width: 1280, height: 800 });
    expect(fitLongEdge(606, 419, 1280)).toEqual({ width: 606, height: 419 });
  });
});

describe('intersect', () => {
  it('clips a window that hangs off the screen', () => {
    expect(intersect({ x: -50, y: 700, width: 200, height: 200 }, { x: 0, y: 0, width: 1280, height: 800 })).toEqual({
      x: 0,
      y: 700,
      width: 150,
      height: 100,
    });
  });

  it('is null for disjoint rectangles', () => {
    expect(intersect({ x: 2000, y: 0, width: 10, height: 10 }, { x: 0, y: 0, width: 1280, height: 800 })).toBeNull();
  });
});

describe('what shows of a window', () => {
  const rect = (x: number, y: number, width: number, height: number): Rect => ({ x, y, width, height });
  const area = (rects: readonly Rect[]): number => rects.reduce((sum, r) => sum + r.width * r.height, 0);

  it('subtracts one rectangle from another in at most four pieces that do not overlap', () => {
    expect(subtract(rect(0, 0, 10, 10), rect(20, 20, 5, 5))).toEqual([rect(0, 0, 10, 10)]);
    expect(subtract(rect(0, 0, 10, 10), rect(-5, -5, 30, 30))).toEqual([]);
    // A hole in the middle: above, below, left, right.
    expect(subtract(rect(0, 0, 10, 10), rect(3, 4, 2, 2))).toEqual([rect(0, 0, 10, 4), rect(0, 6, 10, 4), rect(0, 4, 3, 2), rect(5, 4, 5, 2)]);
    expect(area(subtract(rect(0, 0, 10, 10), rect(5, 5, 10, 10)))).toBe(75);
  });

  it('keeps only the parts of the hidden windows that no shown window above covers', () => {
    const windows = [
      { name: 'editor', bounds: rect(50, 0, 100, 100), minimized: false },
      { name: 'minimised', bounds: rect(0, 0, 200, 200), minimized: true },
      { name: 'deskhand', bounds: rect(0, 0, 100, 50), minimized: false },
      { name: 'terminal', bounds: rect(0, 0, 300, 300), minimized: false },
    ];
    const parts = visibleParts(windows, (w) => w.name === 'deskhand');
    expect(parts).toEqual([rect(0, 0, 50, 50)]);
    // A window at the bottom: all but what the editor and Deskhand's window cover (12,500 pixels).
    expect(area(visibleParts(windows, (w) => w.name === 'terminal'))).toBe(300 * 300 - 12_500);
    // Minimised, a window shows nothing.
    expect(visibleParts(windows, (w) => w.name === 'minimised')).toEqual([]);
  });
});
