import { useEffect, useRef } from 'react';
import { useDeskhand } from '../store';

const BASE_TITLE = 'Deskhand';

function notificationsAvailable(): boolean {
  return typeof Notification !== 'undefined';
}

/**
 * When the agent starts waiting for the user: the page title counts what waits, and a held step
 * (confirm) raises a system notification if the window is hidden or not focused. Permission is asked
 * the first time a step is held, not at start-up, so the request makes sense to the user.
 */
export function useAttention(): void {
  const interactions = useDeskhand((state) => state.interactions);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const seen = useRef(new Set<string>());
  const asked = useRef(false);

  useEffect(() => {
    const waiting = interactions.filter((interaction) => interaction.sessionId === currentSessionId).length;
    document.title = waiting > 0 ? `(${waiting}) ${BASE_TITLE}: waiting for you` : BASE_TITLE;
  }, [interactions, currentSessionId]);

  useEffect(() => {
    for (const interaction of interactions) {
      if (seen.current.has(interaction.id)) continue;
      seen.current.add(interaction.id);
      if (interaction.kind !== 'confirm' || !notificationsAvailable()) continue;
      const show = (): void => {
        if (Notification.permission !== 'granted') return;
        if (!document.hidden && document.hasFocus()) return;
        const notification = new Notification('Deskhand: approve this action?', {
          body: `${interaction.actionText}${interaction.target ? `\nOn: ${interaction.target}` : ''}`,
          tag: interaction.id,
          requireInteraction: true,
        });
        notification.onclick = () => {
          window.focus();
          notification.close();
        };
      };
      if (Notification.permission === 'default' && !asked.current) {
        asked.current = true;
        void Notification.requestPermission().then(show, () => undefined);
      } else {
        show();
      }
    }
  }, [interactions]);
}
