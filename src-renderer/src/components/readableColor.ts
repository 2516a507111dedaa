import { darken, getContrastRatio, lighten, type Theme } from '@mui/material/styles';

/** WCAG AA for body-size text. */
const MIN_TEXT_CONTRAST = 4.5;

/**
 * `color` as text on `background` (the theme's paper by default), darkened (light theme) or lightened
 * (dark theme) until it reads at 4.5:1. MUI's own warning and info colours are meant for fills and
 * borders: as small text on white they fall to about 3:1.
 */
export function readableColor(theme: Theme, color: string, background = theme.palette.background.paper): string {
  let text = color;
  for (let step = 0; step < 10 && getContrastRatio(text, background) < MIN_TEXT_CONTRAST; step += 1) {
    text = theme.palette.mode === 'light' ? darken(text, 0.1) : lighten(text, 0.1);
  }
  return text;
}
