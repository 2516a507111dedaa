import { useMediaQuery, type Theme } from '@mui/material';

/**
 * A window too narrow for the sessions beside the trajectory and the agent's requests (800 px, say):
 * the sessions move into a panel opened from the header. Read on the first render (`noSsr`), so the
 * wide layout never flashes first.
 */
export function useNarrowWindow(): boolean {
  return useMediaQuery((theme: Theme) => theme.breakpoints.down('md'), { noSsr: true });
}

/** The id of the sessions panel, for the header button that opens it. */
export const SESSIONS_PANEL_ID = 'deskhand-sessions';
