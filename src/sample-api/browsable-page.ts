/**
 * The HTML page the real service (Django REST framework) answers for `?format=api` when the client does not ask for
 * JSON:API (docs/source-api.md#media-type-and-headers). A crawler that keeps `format=api` gets this instead of the
 * document; the page shows the same document, as DRF's browsable API does.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function browsablePage(title: string, method: string, url: string, document: unknown, allow: string): string {
  const json = escapeHtml(JSON.stringify(document, null, 2));
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} – Django REST framework</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
<pre class="request"><b>${escapeHtml(method)}</b> ${escapeHtml(url)}</pre>
<pre class="response"><b>HTTP 200 OK</b>
<b>Allow:</b> ${escapeHtml(allow)}
<b>Content-Type:</b> application/vnd.api+json
<b>Vary:</b> Accept

${json}</pre>
</body>
</html>
`;
}
