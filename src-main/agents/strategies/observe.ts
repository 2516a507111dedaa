import type { Strategy } from '../processor/processor';
import { StepDeferred } from '../step-deferred';
import type { StepContext } from '../processor/step-context';
import type { AgentRuntime } from '../runtime';
import { K, trackWrite, type Observation, type WindowInfo } from '../step-keys';

export function runtimeOf(ctx: StepContext): AgentRuntime {
  return ctx.get<AgentRuntime>('runtime');
}

function stepFileName(runtime: AgentRuntime): string {
  return `step-${String(runtime.nextStepIndex()).padStart(5, '0')}`;
}

/**
 * DATA_COLLECTION: a fresh screenshot, of one window (`windowId()`) or the whole desktop, saved as the
 * step's file (written while the model is asked); the model gets it as an image when visual mode is on.
 */
export function screenshotStrategy(windowId: () => string | null, beforeCapture?: (runtime: AgentRuntime) => Promise<void>): Strategy {
  return {
    name: 'screenshot',
    phase: 'DATA_COLLECTION',
    needs: [],
    provides: [K.screenshot],
    async run(ctx) {
      const runtime = runtimeOf(ctx);
      await beforeCapture?.(runtime);
      runtime.progress('Taking a screenshot');
      const id = windowId();
      const shot = await runtime.dispatcher.screenshot(runtime.signal, id ?? undefined);
      if (runtime.dispatcher.takeover.paused) throw new StepDeferred('the user has taken the mouse');
      const { stored, written } = runtime.writeScreenshot(
        { bytes: shot.bytes, mimeType: shot.meta.mimeType, width: shot.meta.width, height: shot.meta.height },
        stepFileName(runtime),
      );
      trackWrite(ctx, written);
      const observation: Observation = {
        stored,
        written,
        bytes: shot.bytes,
        mimeType: shot.meta.mimeType,
        dataUrl: `data:${shot.meta.mimeType};base64,${shot.bytes.toString('base64')}`,
        width: shot.meta.width,
        height: shot.meta.height,
        windowId: id,
        shotId: shot.meta.id ?? null,
      };
      ctx.set(K.screenshot, observation);
    },
  };
}

/** DATA_COLLECTION: the open windows (id, title, application, bounds). */
export const windowsStrategy: Strategy = {
  name: 'list-windows',
  phase: 'DATA_COLLECTION',
  needs: [],
  provides: [K.windows],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    ctx.set(K.windows, runtime.tools.names.has('list_windows') ? await runtime.dispatcher.listWindows(runtime.signal) : ([] as WindowInfo[]));
  },
};

/** A step without a screenshot (the ShellAgent): the observation is the previous output. */
export const noScreenshotStrategy: Strategy = {
  name: 'no-screenshot',
  phase: 'DATA_COLLECTION',
  needs: [],
  provides: [K.screenshot],
  async run(ctx) {
    ctx.set(K.screenshot, null);
  },
};
