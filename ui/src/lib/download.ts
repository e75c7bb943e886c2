// Saving bytes a server sent (a resource's blob, an image, audio) as a
// file, and Activity's export: a Blob the webview downloads. Nothing
// goes to Rust and no path is named; where the file lands is the
// desktop's download folder. It does not decode or check what it saves.

/** Makes the webview download `data` as `name`. */
export function saveFile(data: BlobPart, name: string, mimeType: string): void {
  const blob = new Blob([data], { type: mimeType || "application/octet-stream" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has its own copy by then; a minute is ample.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
