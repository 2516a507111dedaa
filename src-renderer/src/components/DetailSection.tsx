import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A titled part of the step detail; nothing when it has nothing to say. */
export function DetailSection({ title, children, mono }: { title: string; children: ReactNode; mono?: boolean }) {
  if (children === null || children === undefined || children === '') return null;
  return (
    <Box component="section" sx={{ mb: 2 }}>
      <Typography variant="subtitle2" component="h3" color="text.secondary" sx={{ mb: 0.5 }}>
        {title}
      </Typography>
      {typeof children === 'string' ? (
        <Typography
          variant="body2"
          component={mono ? 'pre' : 'p'}
          sx={{ m: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', ...(mono ? { fontFamily: 'monospace', fontSize: 12, p: 1, bgcolor: 'action.hover', borderRadius: 1, maxHeight: 320, overflow: 'auto' } : {}) }}
        >
          {children}
        </Typography>
      ) : (
        children
      )}
    </Box>
  );
}
