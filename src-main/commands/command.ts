/** One tool call an agent wants (the agent's third level: commands). */
export interface Command {
  /** A device tool ("click") or an external server's tool ("<server>.<tool>"). */
  toolName: string;
  parameters: Record<string, unknown>;
  toolType: 'data_collection' | 'action';
  callId: string;
  /**
   * The screenshot (ScreenshotMeta.id) whose pixels the coordinates are: the device refuses the action
   * if its last screenshot is another (EXPECT_SCREENSHOT_META).
   */
  screenshotId?: string;
}

export type ResultStatus = 'success' | 'failure' | 'skipped';

export interface CommandResult {
  status: ResultStatus;
  /** Text the tool returned, for the model and the trajectory. */
  result: string;
  error: string | null;
  durationMs: number;
  /** The tool's structured result (MCP structuredContent), when it succeeded and gave one. */
  structured?: unknown;
  /** Not run because the user had taken the mouse (a failure, but not the agent's). */
  takenOver?: true;
}
