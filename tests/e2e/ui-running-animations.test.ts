// While a run goes on, most of the time is the model thinking, and the UI shows it with a spinner. The
// spinner's arc grew and shrank (stroke-dasharray), which Chromium draws on the main thread every
// frame: about 13 % of a core the whole run long (the bench's "UI main thread busy while a run waits").
// What moves while a session runs must be the compositor's alone: transforms and opacity.
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const RUNNING = makeSession('running', { title: 'Tidy the desktop', request: 'tidy the desktop', status: 'running', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({ prepare: (host) => host.addSession(RUNNING, [makeStep(RUNNING.id, 0)]) });

/**
 * The properties each endless animation running in the page changes, as `name: property, …` (a
 * transition, a hover's or a focus's, ends in a moment).
 */
const ANIMATED_PROPERTIES = `document.getAnimations().filter((animation) => animation.playState === 'running' && animation.effect.getTiming().iterations === Infinity).map((animation) => {
  const properties = new Set();
  for (const frame of animation.effect.getKeyframes()) {
    for (const key of Object.keys(frame)) if (!['offset', 'computedOffset', 'easing', 'composite'].includes(key)) properties.add(key);
  }
  return (animation.animationName ?? 'animation') + ': ' + [...properties].join(', ');
})`;

describe('what moves while a session runs (fake host)', () => {
  it('shows the run is going on with the spinner, which only turns: nothing animates that needs the main thread each frame', async () => {
    const { page } = fresh.ui;
    await page.getByRole('link', { name: /Tidy the desktop/ }).click();
    await fresh.host.waitForCommand('session.open');
    fresh.host.setStatus(RUNNING.id, 'running', 'Step 2: Asking the model');
    const bar = page.getByRole('region', { name: 'Session status' });
    await bar.locator('.MuiCircularProgress-root').waitFor();
    await expect.poll(() => page.evaluate(`${ANIMATED_PROPERTIES}.length`)).toBeGreaterThan(0);
    const animated = (await page.evaluate(ANIMATED_PROPERTIES)) as string[];
    for (const entry of animated) expect(entry).toMatch(/^[^:]+: (?:(?:transform|opacity)(?:, |$))+$/);
    expect(fresh.ui.problems).toEqual([]);
  });
});
