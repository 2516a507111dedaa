import CloseIcon from '@mui/icons-material/Close';
import { Box, Dialog, DialogContent, DialogTitle, IconButton, Typography } from '@mui/material';
import { useUi } from '../store';
import { SHORTCUT_GROUPS } from './shortcuts';

/** Lists every shortcut; opened with "?". */
export function ShortcutsDialog() {
  const open = useUi((state) => state.shortcutsOpen);
  const setOpen = useUi((state) => state.setShortcutsOpen);
  return (
    <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="shortcuts-title" fullWidth maxWidth="sm">
      {/* Named by its title's text alone, not by the Close button inside the title too (an id of its own:
          without one, MUI gives the title the dialog's aria-labelledby). */}
      <DialogTitle id="shortcuts-heading" sx={{ pr: 7 }}>
        <span id="shortcuts-title">Keyboard shortcuts</span>
        <IconButton aria-label="Close" onClick={() => setOpen(false)} sx={{ position: 'absolute', right: 8, top: 8 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent dividers>
        {SHORTCUT_GROUPS.map((group) => (
          <Box component="section" key={group.title} sx={{ mb: 2 }}>
            <Typography variant="subtitle2" component="h3" color="text.secondary" sx={{ mb: 0.5 }}>
              {group.title}
            </Typography>
            <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: '200px 1fr', columnGap: 2, rowGap: 0.5 }}>
              {group.shortcuts.map((shortcut) => (
                <Box key={shortcut.keys + shortcut.what} sx={{ display: 'contents' }}>
                  <Box component="dt">
                    <Box component="kbd" sx={{ fontFamily: 'monospace', fontSize: 13, px: 0.75, py: 0.25, border: 1, borderColor: 'divider', borderRadius: 1, bgcolor: 'action.hover' }}>
                      {shortcut.keys}
                    </Box>
                  </Box>
                  <Typography component="dd" variant="body2" sx={{ m: 0 }}>
                    {shortcut.what}
                  </Typography>
                </Box>
              ))}
            </Box>
          </Box>
        ))}
      </DialogContent>
    </Dialog>
  );
}
