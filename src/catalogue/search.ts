/**
 * Search in the front page, with no server and no fetch (which browsers refuse on file://): the index is a script
 * (`_catalogue/search-index.js`, one entry per record) and the search is a second script that ranks entries as the
 * user types. Results are built with DOM calls and textContent, never innerHTML, so source text stays text.
 */

/**
 * Text as search compares it: lower case, accents and other marks removed, and the letters people type otherwise
 * written as they type them ("Ångström" as "angstrom", "µmol" as "umol", "Straße" as "strasse"). The page's script
 * has the same function (FOLD below); test/catalogue/catalogue.test.ts checks that the two agree.
 */
export function fold(text: string): string {
  const special: Record<string, string> = {
    μ: 'u',
    ß: 'ss',
    æ: 'ae',
    œ: 'oe',
    ø: 'o',
    ł: 'l',
    đ: 'd',
    ð: 'd',
    þ: 'th',
    ı: 'i',
  };
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[μßæœøłđðþı]/g, (c) => special[c] ?? c);
}

export const FOLD = `function fold(text) {
    var special = { 'μ': 'u', 'ß': 'ss', 'æ': 'ae', 'œ': 'oe', 'ø': 'o', 'ł': 'l', 'đ': 'd', 'ð': 'd', 'þ': 'th',
      'ı': 'i' };
    return text.normalize('NFKD').replace(/\\p{M}/gu, '').toLowerCase()
      .replace(/[μßæœøłđðþı]/g, function (c) { return special[c] || c; });
  }`;

/** The letter a label is listed under in a collection's A–Z index: A to Z after folding, `#` for any other. */
export function letterOf(label: string): string {
  const first = fold(label).charAt(0).toUpperCase();
  return /[A-Z]/.test(first) ? first : '#';
}

/** A record as the index holds it. */
export interface IndexEntry {
  /** Its page, from the front page. */
  page: string;
  label: string;
  status: string;
  /** Its collection's API name. */
  collection: string;
  id: string;
  /** The label of its community, for a community variant; else empty. */
  community: string;
  /** The start of its definition (or description). */
  definition: string;
  /** Its searchable text: every text attribute but addresses. */
  text: string;
}

/**
 * An entry of the index: page, label, status, collection, folded text (the id included), id, community, definition
 * start.
 */
export function indexEntry(e: IndexEntry): string {
  return JSON.stringify([
    e.page,
    e.label,
    e.status,
    e.collection,
    fold(`${e.text} ${e.id}`),
    e.id,
    e.community,
    e.definition,
  ]);
}

/**
 * The index script's text in pieces of about 64 kB, from entries made one at a time; `names` gives each collection's
 * human name (`window.cvCollectionNames`).
 */
export function* searchIndexParts(entries: Iterable<string>, names: Record<string, string>): Generator<string> {
  let piece = `window.cvCollectionNames = ${JSON.stringify(names)};\nwindow.cvSearchIndex = [\n`;
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

/**
 * The search box of every page's header: a plain form that opens the front page with `?q=`, so it works without
 * JavaScript from any page; on the front page, the script searches as the user types.
 */
export function searchForm(toFront: string): string {
  return (
    `<form role="search" class="search" action="${toFront}" method="get">\n` +
    '<label for="q">Search terms</label>\n' +
    '<input type="search" id="q" name="q" autocomplete="off" aria-describedby="search-hint">\n' +
    '<button type="submit">Search</button>\n' +
    '<span id="search-hint" class="hint">term, definition, abbreviation, id, or a record\'s URI</span>\n' +
    '</form>\n'
  );
}

/** Where the front page shows results; without JavaScript it says that search needs it. */
export const SEARCH_RESULTS =
  '<noscript><p>Search needs JavaScript; every page can be browsed without it.</p></noscript>\n' +
  '<p id="search-printed" class="print-only"></p>\n' +
  '<p id="search-status" role="status"></p>\n<ol id="results" class="results"></ol>\n' +
  '<button type="button" id="more-results" class="more" hidden></button>\n';

/**
 * The page's script. `cvSearch(index, query, limit, within)` is the ranking: a record's URI or path (`units/21`)
 * finds that record alone; otherwise whole words of the query must all match (folded: case and accents do not count),
 * an id equal to the query counts most, then an exact label, a label that starts with the word, one that contains it,
 * the other text; ties go to the label closest in length to the query, then label order. It returns how many entries
 * match, the best `limit` of them in order, and the positions of all matches. Typing extends the query, and a longer
 * query matches a subset of what the shorter one matched, so the page searches only within the previous matches then.
 * The best `limit` are kept while scanning, never by sorting every match: a one-letter query matches most of the index.
 */
export const SEARCH_SCRIPT = `(function () {
  'use strict';
  var STEP = 50;
  ${FOLD}
  var labels = null;
  var byAddress = null;
  function prepare(index) {
    if (labels !== null && labels.length === index.length) return;
    labels = new Array(index.length);
    byAddress = new Map();
    for (var i = 0; i < index.length; i++) {
      labels[i] = fold(index[i][1]);
      byAddress.set(index[i][3] + '/' + index[i][5], i);
    }
  }
  /** The collection and id a pasted URI or path names ("…/units/21/?format=api", "units/21"), or null. */
  function addressOf(query) {
    var q = query.trim();
    if (q.indexOf('/') < 0) return null;
    var parts = q.replace(/[?#].*$/, '').split('/').filter(function (p) { return p !== ''; });
    if (parts.length < 2) return null;
    try {
      return decodeURIComponent(parts[parts.length - 2]) + '/' + decodeURIComponent(parts[parts.length - 1]);
    } catch (e) {
      return null;
    }
  }
  function cvSearch(index, query, limit, within) {
    prepare(index);
    var address = addressOf(query);
    if (address !== null && byAddress.has(address)) {
      var at = byAddress.get(address);
      return { total: 1, results: [index[at]], matches: [at], address: true };
    }
    var whole = query.trim();
    var terms = fold(query).split(/\\s+/).filter(function (t) { return t !== ''; });
    var top = [];
    var matches = [];
    if (terms.length === 0) return { total: 0, results: [], matches: matches, address: false };
    var max = limit === undefined ? Infinity : limit;
    var count = within ? within.length : index.length;
    function better(a, b) {
      if (a[0] !== b[0]) return a[0] > b[0];
      if (a[2] !== b[2]) return a[2] < b[2];
      return labels[a[1]] < labels[b[1]];
    }
    for (var k = 0; k < count; k++) {
      var i = within ? within[k] : k;
      var label = labels[i];
      var text = index[i][4];
      var exactId = index[i][5] === whole;
      var score = exactId ? 1000 : 0;
      for (var j = 0; j < terms.length && score >= 0 && !exactId; j++) {
        var term = terms[j];
        var found = label.indexOf(term);
        if (found === 0) score += label.length === term.length ? 100 : 50;
        else if (found > 0) score += 20;
        else if (text.indexOf(term) >= 0) score += 5;
        else score = -1;
      }
      if (score <= 0) continue;
      matches.push(i);
      var entry = [score, i, Math.abs(label.length - whole.length)];
      if (top.length === max && !better(entry, top[top.length - 1])) continue;
      var place = top.length;
      while (place > 0 && better(entry, top[place - 1])) place--;
      top.splice(place, 0, entry);
      if (top.length > max) top.pop();
    }
    return { total: matches.length, results: top.map(function (t) { return index[t[1]]; }), matches: matches,
      address: false };
  }
  window.cvSearch = cvSearch;
  window.cvFold = fold;
  if (typeof document === 'undefined') return;
  var input = document.getElementById('q');
  var list = document.getElementById('results');
  var status = document.getElementById('search-status');
  var more = document.getElementById('more-results');
  // On paper the header (and its search box) is left out: this line says what the results are for.
  var printed = document.getElementById('search-printed');
  if (!input || !list || !status || !more) return;
  var index = window.cvSearchIndex || [];
  var names = window.cvCollectionNames || {};
  var previous = { query: '', matches: null };
  var limit = STEP;
  prepare(index); // at load, not on the first keystroke
  function item(entry) {
    var li = document.createElement('li');
    var link = document.createElement('a');
    link.href = entry[0];
    link.textContent = entry[1];
    var where = document.createElement('span');
    where.className = 'muted';
    where.textContent = ' · ' + (names[entry[3]] || entry[3]) +
      (entry[6] ? ' · community ' + entry[6] : '') + (entry[2] ? ' · ' + entry[2] : '');
    li.appendChild(link);
    li.appendChild(where);
    if (entry[7]) {
      var definition = document.createElement('p');
      definition.className = 'excerpt';
      definition.textContent = entry[7];
      li.appendChild(definition);
    }
    return li;
  }
  function show(query) {
    var folded = fold(query);
    var narrower = previous.matches !== null && previous.query.trim() !== '' && folded.indexOf(previous.query) === 0;
    var found = cvSearch(index, query, limit, narrower && !previous.address ? previous.matches : undefined);
    previous = { query: folded, matches: found.matches, address: found.address };
    var total = found.total;
    list.textContent = '';
    found.results.forEach(function (entry) { list.appendChild(item(entry)); });
    var shown = found.results.length;
    more.hidden = total <= shown;
    more.textContent = 'Show ' + Math.min(STEP, total - shown) + ' more';
    if (printed) printed.textContent = query.trim() === '' ? '' : 'Search results for \u201c' + query.trim() + '\u201d';
    status.textContent = query.trim() === '' ? '' :
      found.address ? 'This address is a record of this snapshot: press Enter to open it.' :
      total === 0 ? 'No record matches.' :
      total > shown ? total + ' records match; the best ' + shown + ' are shown.' :
      total + (total === 1 ? ' record matches.' : ' records match.');
  }
  function remember(query) {
    try {
      history.replaceState(null, '', query ? '?q=' + encodeURIComponent(query) : location.pathname);
    } catch (e) { /* some browsers refuse on file:// */ }
  }
  function links() { return list.querySelectorAll('li > a'); }
  input.addEventListener('input', function () {
    limit = STEP;
    show(input.value);
    remember(input.value);
  });
  more.addEventListener('click', function () {
    var focus = links().length;
    limit += STEP;
    previous = { query: '', matches: null };
    show(input.value);
    var next = links()[focus];
    if (next) next.focus();
  });
  input.form.addEventListener('submit', function (event) {
    event.preventDefault();
    var first = links()[0];
    if (first) first.click();
  });
  input.addEventListener('keydown', function (event) {
    if (event.key !== 'ArrowDown') return;
    var first = links()[0];
    if (first) { event.preventDefault(); first.focus(); }
  });
  list.addEventListener('keydown', function (event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    var all = Array.prototype.slice.call(links());
    var at = all.indexOf(document.activeElement);
    if (at < 0) return;
    event.preventDefault();
    if (event.key === 'ArrowDown' && at + 1 < all.length) all[at + 1].focus();
    else if (event.key === 'ArrowUp') (at === 0 ? input : all[at - 1]).focus();
  });
  var initial = new URLSearchParams(location.search).get('q');
  if (initial) { input.value = initial; show(initial); }
})();
`;
