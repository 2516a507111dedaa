// A reload of a Deskhand tab in browser mode. The page took the token out of its address (see
// src/bridge/page-token.ts), so the server answered the reload with a refusal that loads this script.
// With the token the tab kept, it fetches the page (the token in a header, never in an address) and
// starts it here; without one, or with one the server no longer accepts, the refusal stays on screen.
// A built file, copied as it is: plain JavaScript.

const TOKEN_STORAGE_KEY = 'deskhand.token'; // as in src/bridge/page-token.ts

function keptToken() {
  try {
    return window.sessionStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

async function reenter(token) {
  const response = await fetch(location.pathname, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!response.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), 'text/html');
  document.title = page.title;
  document.body.replaceWith(document.adoptNode(page.body));
  // Scripts parsed that way never run: each is made again.
  for (const element of page.head.querySelectorAll('link[rel="stylesheet"], link[rel="modulepreload"], script[src]')) {
    const copy = document.createElement(element.localName);
    for (const { name, value } of element.attributes) copy.setAttribute(name, value);
    document.head.append(copy);
  }
}

const token = keptToken();
if (token) reenter(token).catch((error) => console.error('Deskhand: could not load the page again', error));
