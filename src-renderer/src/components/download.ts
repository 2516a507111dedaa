/** Saves `text` as a file through a temporary Blob link (no navigation, nothing through the bridge). */
export function downloadText(fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName.replace(/[\\/:*?"<>|]+/g, '_') || 'deskhand-session.json';
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken its copy once click() returns; a moment later the URL can go.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
