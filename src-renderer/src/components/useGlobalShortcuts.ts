import { useEffect } from 'react';
import { FOCUS_TARGETS, useDeskhand, useUi } from '../store';

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

function overlayOf(target: EventTarget | null): Element | null {
  return target instanceof Element ? target.closest('.MuiModal-root, .MuiPopover-root') : null;
}

function inOverlay(target: EventTarget | null): boolean {
  return overlayOf(target) !== null;
}

/**
 * In a dialog or menu, but not the narrow window's sessions panel (which holds the search): a modal keeps
 * the keyboard, and what a shortcut opens or focuses would come over it or pull the focus out of it.
 */
function inModal(target: EventTarget | null): boolean {
  const overlay = overlayOf(target);
  return overlay !== null && !overlay.contains(document.getElementById(FOCUS_TARGETS.sessionSearch));
}

function focusById(id: string): void {
  const element = document.getElementById(id);
  if (!element) return;
  // The trajectory list itself is not focusable: its one tabbable row is.
  const target = element.matches('input, textarea') ? element : (element.querySelector<HTMLElement>('[tabindex="0"]') ?? element);
  target.focus();
}

/** App-wide keys (listed in the "Keyboard shortcuts" dialog); single keys only act outside text fields. */
export function useGlobalShortcuts(): void {
  const stop = useDeskhand((state) => state.stop);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented) return;
      const ui = useUi.getState();
      const mod = event.ctrlKey || event.metaKey;
      if (mod && !event.altKey && !event.shiftKey) {
        const actions: Record<string, () => void> = {
          k: () => {
            // Inert in a modal: closing it for a shortcut would drop what it holds (Settings not saved, a
            // title being typed). Left to run, the focus escaped the dialog to the search behind it, or the
            // sessions panel opened over it.
            if (inModal(event.target)) return;
            // In a narrow window the search is in the sessions panel: open it, then focus the search once it shows.
            if (ui.sessionsOpen || document.getElementById(FOCUS_TARGETS.sessionSearch)?.checkVisibility({ visibilityProperty: true })) {
              focusById(FOCUS_TARGETS.sessionSearch);
              return;
            }
            ui.setSessionsOpen(true);
            requestAnimationFrame(() => requestAnimationFrame(() => focusById(FOCUS_TARGETS.sessionSearch)));
          },
          // Inert in a modal too: Settings opened over a dialog, a second modal on the first.
          ',': () => {
            if (!inModal(event.target)) ui.setSettingsOpen(true);
          },
          // Stop works everywhere: it is how a run is halted, whatever is open.
          '.': () => void stop(),
        };
        const action = actions[event.key.toLowerCase()];
        if (action) {
          event.preventDefault();
          action();
        }
        return;
      }
      if (mod || event.altKey || isTyping(event.target) || inOverlay(event.target)) return;
      const keys: Record<string, () => void> = {
        '?': () => ui.setShortcutsOpen(true),
        '/': () => focusById(FOCUS_TARGETS.request),
        t: () => focusById(FOCUS_TARGETS.trajectory),
        b: () => ui.setBlackboardOpen(!ui.blackboardOpen),
      };
      const action = keys[event.key] ?? keys[event.key.toLowerCase()];
      if (action && (event.key === '?' || !event.shiftKey || event.key === '/')) {
        event.preventDefault();
        action();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [stop]);
}
