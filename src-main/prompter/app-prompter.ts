import type { ChatMessage } from '../llm/model-client';
import type { StepView } from '../protocol';
import type { PromptTemplate } from './template';

export const APP_AGENT_PLACEHOLDERS = {
  system: ['tools'],
  user: ['request', 'history', 'feedback', 'screen'],
} as const;

export interface AppPromptInput {
  request: string;
  /** Steps so far, oldest first; only the last `recentSteps` are shown. */
  history: readonly StepView[];
  recentSteps: number;
  screenshot: { dataUrl: string; width: number; height: number } | null;
}

/** Text the model wrote or a tool returned goes back to the model as data, never as instructions. */
export function asData(text: string, max = 600): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const cut = oneLine.length > max ? `${oneLine.slice(0, max)}… (cut)` : oneLine;
  return cut.replace(/</g, '‹');
}

function historyLine(step: StepView): string {
  const outcome = step.error ? `failed: ${asData(step.error, 300)}` : step.result ? `ok: ${asData(step.result, 200)}` : 'ok';
  return `Step ${step.index + 1} [${step.status}] ${asData(step.actionText, 200)} -> ${outcome}`;
}

/**
 * Builds the AppAgent's messages: the stable system text (with the tool docs), then one user message
 * with the request, a bounded window of previous steps, feedback on the last error and the screenshot.
 */
export class AppPrompter {
  private readonly systemText: string;

  constructor(
    private readonly templates: { system: PromptTemplate; user: PromptTemplate },
    toolDocs: string,
  ) {
    this.systemText = templates.system.render({ tools: toolDocs });
  }

  get system(): string {
    return this.systemText;
  }

  build(input: AppPromptInput): ChatMessage[] {
    const shown = input.recentSteps > 0 ? input.history.slice(-input.recentSteps) : [];
    const omitted = input.history.length - shown.length;
    const history = [
      ...(omitted > 0 ? [`(${omitted} earlier step${omitted === 1 ? '' : 's'} not shown)`] : []),
      ...shown.map(historyLine),
    ];
    const last = input.history.at(-1);
    const feedback = last?.error
      ? `\nYour last step failed: ${asData(last.error, 500)}\nCorrect the reply or choose another action.\n`
      : '';
    const text = this.templates.user.render({
      request: input.request.replace(/<\/data>/gi, '</ data>'),
      history: history.length ? history.join('\n') : '(none yet)',
      feedback,
      screen: input.screenshot
        ? `The screenshot below is ${input.screenshot.width}x${input.screenshot.height} pixels.`
        : 'No screenshot is available this step.',
    });
    const content: Exclude<ChatMessage['content'], null | undefined> = input.screenshot
      ? [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: input.screenshot.dataUrl, detail: 'high' } },
        ]
      : text;
    return [
      { role: 'system', content: this.systemText },
      { role: 'user', content } as ChatMessage,
    ];
  }
}
