import { Box, Paper, Typography } from '@mui/material';
import { memo } from 'react';
import type { StepView } from '../../../src-main/protocol';
import { formatDuration } from './labels';
import { StepScreenshot } from './StepScreenshot';
import { StepStatusChip } from './StepStatusChip';

const wrapped = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const;

function StepField({ label, text, color }: { label: string; text: string; color?: string }) {
  if (!text) return null;
  return (
    <Typography variant="body2" color={color} sx={wrapped}>
      <Box component="span" sx={{ fontWeight: 600 }}>
        {label}:
      </Box>{' '}
      {text}
    </Typography>
  );
}

/** One step of the trajectory; memoised because a step never changes once added. */
export const StepItem = memo(function StepItem({ step }: { step: StepView }) {
  const tokens = step.tokens.prompt + step.tokens.completion;
  return (
    <Paper variant="outlined" sx={{ display: 'flex', gap: 2, p: 1.5, mx: 2, my: 0.75 }}>
      {step.screenshot && <StepScreenshot screenshot={step.screenshot} stepIndex={step.index} />}
      <Box sx={{ minWidth: 0, flex: 1, display: 'flex', flexDirection: 'column', gap: 0.5 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography variant="subtitle2" component="h3">
            Step {step.index}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {step.agent}
          </Typography>
          <StepStatusChip status={step.status} />
          <Typography variant="caption" color="text.secondary" sx={{ ml: 'auto' }}>
            {formatDuration(step.durationMs)}
            {tokens > 0 && ` · ${step.tokens.prompt.toLocaleString()} + ${step.tokens.completion.toLocaleString()} tokens`}
          </Typography>
        </Box>
        <StepField label="Thought" text={step.thought} />
        <StepField label="Action" text={step.actionText} />
        {step.result !== null && <StepField label="Result" text={step.result} />}
        {step.error !== null && <StepField label="Error" text={step.error} color="error" />}
      </Box>
    </Paper>
  );
});
