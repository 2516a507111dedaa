import { alpha, type CSSObject, type Theme } from '@mui/material/styles';
import type { ChipColor } from './labels';
import { readableColor } from './readableColor';

/**
 * Class names of the trajectory list and its steps' parts. A long run adds a row many times a second, so
 * rows are plain elements with these classes, styled once per theme by `trajectoryStyles` (MUI's
 * per-element styling cost more than all the rest of a new row). They look like the MUI components they
 * stand for.
 */
export const TRAJECTORY_CLASSES = {
  frame: 'trajectory',
  scroller: 'trajectory-scroller',
  list: 'trajectory-list',
  row: 'trajectory-row',
  groups: 'step-groups',
  groupsWithRound: 'step-groups-round',
  round: 'step-round',
  roundNumber: 'step-round-number',
  roundRequest: 'step-round-request',
  subtask: 'step-subtask',
  subtaskAgent: 'step-subtask-agent',
  card: 'step-card',
  body: 'step-body',
  headline: 'step-headline',
  title: 'step-title',
  agent: 'step-agent',
  approved: 'step-approved',
  notRun: 'step-not-run',
  usage: 'step-usage',
  field: 'step-field',
  fieldError: 'step-field-error',
  fieldLabel: 'step-field-label',
  answer: 'step-answer',
  thumbnail: 'step-thumbnail',
  thumbnailMissing: 'step-thumbnail-missing',
  thumbnailMissingText: 'step-thumbnail-missing-text',
  chip: 'step-chip',
  chipLabel: 'step-chip-label',
} as const;

const CHIP_COLORS: ChipColor[] = ['default', 'primary', 'secondary', 'error', 'info', 'success', 'warning'];

export function chipColorClass(color: ChipColor): string {
  return `${TRAJECTORY_CLASSES.chip}-${color}`;
}

/** The look of a small outlined MUI Chip, a class per colour. */
function chipStyles(theme: Theme): Record<string, CSSObject> {
  const colors = Object.fromEntries(
    CHIP_COLORS.map((color): [string, CSSObject] => {
      if (color === 'default') {
        const border = theme.palette.mode === 'light' ? theme.palette.grey[400] : theme.palette.grey[700];
        return [`.${chipColorClass(color)}`, { color: theme.palette.text.primary, border: `1px solid ${border}` }];
      }
      const { main } = theme.palette[color];
      return [`.${chipColorClass(color)}`, { color: readableColor(theme, main), border: `1px solid ${alpha(main, 0.7)}` }];
    }),
  );
  return {
    [`.${TRAJECTORY_CLASSES.chip}`]: {
      maxWidth: '100%',
      fontFamily: theme.typography.fontFamily,
      fontSize: theme.typography.pxToRem(13),
      display: 'inline-flex',
      alignItems: 'center',
      justifyContent: 'center',
      height: 24,
      lineHeight: 1.5,
      backgroundColor: 'transparent',
      borderRadius: 16,
      whiteSpace: 'nowrap',
      verticalAlign: 'middle',
      boxSizing: 'border-box',
    },
    [`.${TRAJECTORY_CLASSES.chipLabel}`]: { overflow: 'hidden', textOverflow: 'ellipsis', paddingLeft: 7, paddingRight: 7, whiteSpace: 'nowrap' },
    ...colors,
  };
}

/** The styles behind `TRAJECTORY_CLASSES`, for one theme (a GlobalStyles `styles` function). */
export function trajectoryStyles(theme: Theme): CSSObject {
  const { palette, typography, shape } = theme;
  /** A MUI Typography of this variant. */
  const text = (variant: 'subtitle1' | 'subtitle2' | 'body2' | 'caption' | 'overline', color?: string): CSSObject => ({
    ...typography[variant],
    margin: 0,
    ...(color ? { color } : {}),
  });
  const c = TRAJECTORY_CLASSES;
  return {
    [`.${c.frame}`]: { position: 'relative', flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' },
    [`.${c.scroller}`]: { flex: 1, minHeight: 0, overflowY: 'auto', padding: '8px 0' },
    [`.${c.list}`]: { position: 'relative', width: '100%' },
    // The virtualiser sets each row's `top`.
    [`.${c.row}`]: { position: 'absolute', left: 0, width: '100%', paddingBottom: 6 },
    [`.${c.row}:focus-visible`]: { outline: 'none' },
    [`.${c.row}:focus-visible .${c.card}`]: { outline: `3px solid ${palette.primary.main}`, outlineOffset: 1 },
    [`.${c.groups}`]: { margin: '8px 16px 2px' },
    [`.${c.groupsWithRound}`]: { marginTop: 12 },
    [`.${c.round}`]: {
      display: 'flex',
      alignItems: 'baseline',
      gap: 8,
      borderBottom: `2px solid ${palette.primary.main}`,
      paddingBottom: 4,
      marginBottom: 8,
    },
    [`.${c.roundNumber}`]: { ...text('overline', readableColor(theme, palette.primary.main, palette.background.default)), flexShrink: 0, lineHeight: 1.5 },
    [`.${c.roundRequest}`]: { ...text('subtitle1'), fontWeight: 600, minWidth: 0, overflowWrap: 'anywhere' },
    // Window titles can be one long word: they wrap anywhere rather than run out of the row.
    [`.${c.subtask}`]: { ...text('body2', palette.text.secondary), display: 'flex', gap: 6, flexWrap: 'wrap', alignItems: 'baseline', overflowWrap: 'anywhere' },
    [`.${c.subtask} > span`]: { minWidth: 0 },
    [`.${c.subtaskAgent}`]: { fontWeight: 600, color: palette.text.primary },
    [`.${c.card}`]: {
      display: 'flex',
      gap: 16,
      padding: 12,
      margin: '6px 16px 0',
      cursor: 'pointer',
      backgroundColor: palette.background.paper,
      color: palette.text.primary,
      border: `1px solid ${palette.divider}`,
      borderRadius: shape.borderRadius,
    },
    [`.${c.card}:hover`]: { borderColor: palette.text.secondary },
    [`.${c.body}`]: { minWidth: 0, flex: 1, display: 'flex', flexDirection: 'column', gap: 4 },
    [`.${c.headline}`]: { display: 'flex', alignItems: 'center', gap: 8, flexWrap: 'wrap' },
    [`.${c.title}`]: text('subtitle2'),
    [`.${c.agent}`]: { ...text('body2', palette.text.secondary), minWidth: 0, overflowWrap: 'anywhere' },
    [`.${c.approved}`]: text('caption', readableColor(theme, palette.success.main)),
    [`.${c.usage}`]: { ...text('caption', palette.text.secondary), marginLeft: 'auto' },
    [`.${c.field}`]: {
      ...text('body2'),
      whiteSpace: 'pre-wrap',
      overflowWrap: 'anywhere',
      display: '-webkit-box',
      WebkitLineClamp: 4,
      WebkitBoxOrient: 'vertical',
      overflow: 'hidden',
    },
    [`.${c.fieldError}`]: { color: palette.error.main },
    [`.${c.fieldLabel}`]: { fontWeight: 600 },
    // An agent's answer is Markdown (paragraphs, lists): a taller block, cut rather than clamped by lines.
    [`.${c.answer}`]: { display: 'block', whiteSpace: 'normal', maxHeight: '14em' },
    [`.${c.answer} > :is(p, ul, ol)`]: { marginTop: 2, marginBottom: 2 },
    // A first paragraph goes on the label's line, as the other fields' text does.
    [`.${c.answer} > p:first-of-type`]: { display: 'inline' },
    [`.${c.thumbnail}`]: {
      display: 'block',
      flexShrink: 0,
      alignSelf: 'flex-start',
      objectFit: 'contain',
      borderRadius: shape.borderRadius,
      border: `1px solid ${palette.divider}`,
    },
    [`.${c.thumbnailMissing}`]: {
      flexShrink: 0,
      display: 'grid',
      placeItems: 'center',
      backgroundColor: palette.action.hover,
      borderRadius: shape.borderRadius,
    },
    [`.${c.thumbnailMissingText}`]: text('caption', palette.text.secondary),
    ...chipStyles(theme),
  };
}
