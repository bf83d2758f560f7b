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
 * The page's script. `cvSearch(index, query, limit, within)` is the ranking (whole words of the query must all match;
 * the label counts most, an exact label more, a prefix more than a match inside); it returns how many entries match,
 * the best `limit` of them in order, and the positions of all matches. Typing extends the query, and a longer query
 * matches a subset of what the shorter one matched, so the page searches only within the previous matches then. The
 * best `limit` are kept while scanning, never by sorting every match: a one-letter query matches most of the index.
 */
export const SEARCH_SCRIPT = `(function () {
  'use strict';
  var MAX = 50;
  var labels = null;
  function lowerLabels(index) {
    if (labels === null || labels.length !== index.length) {
      labels = new Array(index.length);
      for (var i = 0; i < index.length; i++) labels[i] = index[i][1].toLowerCase();
    }
    return labels;
  }
  function cvSearch(index, query, limit, within) {
    var terms = query.toLowerCase().split(/\\s+/).filter(function (t) { return t !== ''; });
    var top = [];
    var matches = [];
    if (terms.length === 0) return { total: 0, results: [], matches: matches };
    var lower = lowerLabels(index);
    var max = limit === undefined ? Infinity : limit;
    var count = within ? within.length : index.length;
    for (var k = 0; k < count; k++) {
      var i = within ? within[k] : k;
      var label = lower[i];
      var text = index[i][4];
      var score = 0;
      for (var j = 0; j < terms.length && score >= 0; j++) {
        var term = terms[j];
        var at = label.indexOf(term);
        if (at === 0) score += label.length === term.length ? 100 : 50;
        else if (at > 0) score += 20;
        else if (text.indexOf(term) >= 0) score += 5;
        else score = -1;
      }
      if (score <= 0) continue;
      matches.push(i);
      // Kept in order: higher score first, then the index's order (matches arrive in it).
      if (top.length === max && score <= top[top.length - 1][0]) continue;
      var place = top.length;
      while (place > 0 && top[place - 1][0] < score) place--;
      top.splice(place, 0, [score, i]);
      if (top.length > max) top.pop();
    }
    return { total: matches.length, results: top.map(function (t) { return index[t[1]]; }), matches: matches };
  }
  window.cvSearch = cvSearch;
  if (typeof document === 'undefined') return;
  var input = document.getElementById('q');
  var list = document.getElementById('results');
  var status = document.getElementById('search-status');
  if (!input || !list || !status) return;
  var index = window.cvSearchIndex || [];
  var previous = { query: '', matches: null };
  lowerLabels(index); // at load, not on the first keystroke
  function show(query) {
    var lowered = query.toLowerCase();
    var narrower = previous.matches !== null && previous.query.trim() !== '' && lowered.indexOf(previous.query) === 0;
    var found = cvSearch(index, query, MAX, narrower ? previous.matches : undefined);
    previous = { query: lowered, matches: found.matches };
    var total = found.total;
    list.textContent = '';
    found.results.forEach(function (entry) {
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
      total === 0 ? 'No record matches.' :
      total > MAX ? total + ' records match; the first ' + MAX + ' are shown.' :
      total + (total === 1 ? ' record matches.' : ' records match.');
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
