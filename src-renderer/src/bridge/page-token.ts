/** Where a browser-mode tab keeps its token once it has taken it out of the address (public/reenter.js reads it too). */
export const TOKEN_STORAGE_KEY = 'deskhand.token';

/** The parts of `location`, `history` and `sessionStorage` used here; tests pass their own. */
export interface PageAddress {
  readonly href: string;
}

export interface PageHistory {
  readonly state: unknown;
  replaceState(state: unknown, unused: string, url: string): void;
}

export interface TabStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * The browser-mode token. It arrives in the address Deskhand printed (`?token=…`) and leaves it at once:
 * the address bar, the tab's history and the links resolved against the address would show it, and so
 * would a screenshot of the browser window, which the agent sends to the model. The tab keeps it in its
 * sessionStorage, where a reload finds it. `storage` is null where the browser allows none.
 */
export function takePageToken(address: PageAddress, history: PageHistory, storage: TabStorage | null): string {
  const url = new URL(address.href);
  const fromAddress = url.searchParams.get('token');
  if (fromAddress !== null) {
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  try {
    if (fromAddress) {
      storage?.setItem(TOKEN_STORAGE_KEY, fromAddress);
      return fromAddress;
    }
    return storage?.getItem(TOKEN_STORAGE_KEY) ?? '';
  } catch {
    // Storage refused (full, or switched off): this load works, a reload needs the printed address again.
    return fromAddress ?? '';
  }
}
