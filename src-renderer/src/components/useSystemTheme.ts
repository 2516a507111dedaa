import { createTheme, useMediaQuery, type Theme } from '@mui/material';
import { useMemo } from 'react';

/** Light or dark, following the operating system and switching live when it changes. */
export function useSystemTheme(): Theme {
  const prefersDark = useMediaQuery('(prefers-color-scheme: dark)');
  return useMemo(() => createTheme({ palette: { mode: prefersDark ? 'dark' : 'light' } }), [prefersDark]);
}
