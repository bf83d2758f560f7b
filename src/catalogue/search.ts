/**
 * Search in the front page, with no server and no fetch (which browsers refuse on file://): the index is a script
 * (`_catalogue/search-index.js`, one entry per record) and the search is a second script that ranks entries as the
 * user types. Results are built with DOM calls and textContent, never innerHTML, so source text stays text.
 */

/** A record as the index holds it: page file, label, status, collection, and lower-cased searchable text. */
export function indexEntry(page: string, label: string, status: string, collection: string, text: string): string {
  return JSON.stringify([page, label, status, collection, text.toLowerCase()]);
}

/** The index script's text in pieces of about 64 kB, from entries made one at a time. */
export function* searchIndexParts(entries: Iterable<string>): Generator<string> {
  let piece = 'window.cvSearchIndex = [\n';
  let first = true;
  for (const entry of entries) {
    piece += first ? entry : `,\n${entry}`;
    first = false;
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}\n];\n`;
}

/** The form on the front page; without JavaScript it says that search needs it. */
export const SEARCH_FORM =
  '<form role="search" class="search" action="index.html" method="get">\n' +
  '<label for="q">Search every collection (term, name, definition, abbreviation, code…)</label>\n' +
  '<input type="search" id="q" name="q" autocomplete="off">\n' +
  '<noscript><p>Search needs JavaScript; every page can be browsed without it.</p></noscript>\n' +
  '<p id="search-status" role="status"></p>\n<ol id="results"></ol>\n</form>\n';

/**
 * The page's script. `cvSearch(index, query)` is the ranking (whole words of the query must all match; the label
 * counts most, an exact label more, a prefix more than a match inside), wired to the input when a document exists.
 */
export const SEARCH_SCRIPT = `(function () {
  'use strict';
  var MAX = 50;
  function cvSearch(index, query) {
    var terms = query.toLowerCase().split(/\\s+/).filter(function (t) { return t !== ''; });
    if (terms.length === 0) return [];
    var found = [];
    for (var i = 0; i < index.length; i++) {
      var entry = index[i];
      var label = entry[1].toLowerCase();
      var score = 0;
      for (var j = 0; j < terms.length && score >= 0; j++) {
        var term = terms[j];
        if (label === term) score += 100;
        else if (label.indexOf(term) === 0) score += 50;
        else if (label.indexOf(term) > 0) score += 20;
        else if (entry[4].indexOf(term) >= 0) score += 5;
        else score = -1;
      }
      if (score > 0) found.push([score, i]);
    }
    found.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return found.map(function (f) { return index[f[1]]; });
  }
  window.cvSearch = cvSearch;
  if (typeof document === 'undefined') return;
  var input = document.getElementById('q');
  var list = document.getElementById('results');
  var status = document.getElementById('search-status');
  if (!input || !list || !status) return;
  var index = window.cvSearchIndex || [];
  function show(query) {
    var results = cvSearch(index, query);
    list.textContent = '';
    results.slice(0, MAX).forEach(function (entry) {
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = entry[0];
      link.textContent = entry[1];
      var where = document.createElement('span');
      where.className = 'muted';
      where.textContent = ' ' + entry[3] + (entry[2] ? ' · ' + entry[2] : '');
      item.appendChild(link);
      item.appendChild(where);
      list.appendChild(item);
    });
    status.textContent = query.trim() === '' ? '' :
      results.length === 0 ? 'No record matches.' :
      results.length > MAX ? results.length + ' records match; the first ' + MAX + ' are shown.' :
      results.length + (results.length === 1 ? ' record matches.' : ' records match.');
  }
  function remember(query) {
    try {
      history.replaceState(null, '', query ? '?q=' + encodeURIComponent(query) : location.pathname);
    } catch (e) { /* some browsers refuse on file:// */ }
  }
  input.addEventListener('input', function () { show(input.value); remember(input.value); });
  input.form.addEventListener('submit', function (event) { event.preventDefault(); });
  var initial = new URLSearchParams(location.search).get('q');
  if (initial) { input.value = initial; show(initial); }
})();
`;
