import { Chip } from '@mui/material';
import type { AgentStatus } from '../../../src-main/protocol';
import { AGENT_STATUS_COLORS } from './labels';

export function StepStatusChip({ status }: { status: AgentStatus }) {
  return <Chip size="small" label={status} color={AGENT_STATUS_COLORS[status]} variant="outlined" />;
}
