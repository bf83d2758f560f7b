/**
 * Search in the front page, with no server and no fetch (which browsers refuse on file://): the index is a script
 * (`_catalogue/search-index.js`, one entry per record) and the search is a second script that ranks entries as the
 * user types. Results are built with DOM calls and textContent, never innerHTML, so source text stays text.
 */

/** Letters that decomposing leaves as they are, written as people type them. */
const SPECIAL: Record<string, string> = {
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

/**
 * Text as search compares it: lower case, accents and other marks removed, and the letters people type otherwise
 * written as they type them ("Ångström" as "angstrom", "µmol" as "umol", "Straße" as "strasse"). The page's script
 * has the same function (FOLD below); test/catalogue/catalogue.test.ts checks that the two agree.
 */
export function fold(text: string): string {
  // Most text is ASCII, which has nothing to decompose or replace: lower case is the whole fold.
  // eslint-disable-next-line no-control-regex -- the ASCII range, control characters included
  if (/^[\u0000-\u007f]*$/.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[μßæœøłđðþı]/g, (c) => SPECIAL[c] ?? c);
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
    '<input type="search" id="q" name="q" autocomplete="off" aria-describedby="search-hint" ' +
    'placeholder="Search terms, definitions, ids">\n' +
    '<button type="submit">Search</button>\n' +
    '<span id="search-hint" class="hint">term, definition, abbreviation, id, or a record\'s URI</span>\n' +
    '</form>\n'
  );
}

/**
 * The front page's search view, shown by its script for `?q=` in place of the page's contents: "Results for “…”"
 * with a link that clears it, facets by collection and status with their counts, the results, and a button for more.
 * Without JavaScript it stays hidden, and the page says that search needs it.
 */
export const SEARCH_RESULTS =
  '<section id="search-view" hidden aria-labelledby="results-title">\n' +
  '<div class="results-head"><h2 id="results-title">Results for \u201c<span id="search-query"></span>\u201d</h2>\n' +
  '<a id="clear-search" href="index.html">Clear the search</a></div>\n' +
  '<p id="search-printed" class="print-only"></p>\n' +
  '<div class="search-view">\n<div class="facets" id="facets"></div>\n<div>\n' +
  '<p id="search-status" role="status"></p>\n<ol id="results" class="results"></ol>\n' +
  '<button type="button" id="more-results" class="more" hidden></button>\n</div>\n</div>\n</section>\n';

/**
 * The page's script. `cvSearch(index, query, limit, within, keep)` is the ranking: a record's URI or path
 * (`units/21`) finds that record alone; otherwise whole words of the query must all match (folded: case and accents
 * do not count), an id equal to the query counts most, then an exact label, a label that starts with the word, one
 * that contains it, the other text; ties go to the label closest in length to the query, then label order. It
 * returns the positions of all matches, and how many of them `keep` keeps (the facets) with the best `limit` of those
 * in order. Typing extends the query, and a longer query matches a subset of what the shorter one matched, so the
 * page searches only within the previous matches then. The best `limit` are kept while scanning, never by sorting
 * every match: a one-letter query matches most of the index.
 *
 * `cvCorrect(index, query)` is the typo tolerance: when nothing matches, each word of five letters or more that is no
 * word of any label is replaced by the label word one or two letters off (an edit: a letter added, left out, changed,
 * or two swapped), the closest first, then the most frequent; null when no word changes.
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
    vocabulary = null;
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
  function termsOf(query) {
    return fold(query).split(/\\s+/).filter(function (t) { return t !== ''; });
  }
  function cvSearch(index, query, limit, within, keep) {
    prepare(index);
    var address = addressOf(query);
    if (address !== null && byAddress.has(address)) {
      var at = byAddress.get(address);
      return { total: 1, results: [index[at]], matches: [at], address: true };
    }
    var whole = query.trim();
    var terms = termsOf(query);
    var top = [];
    var matches = [];
    var total = 0;
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
      if (keep && !keep(i)) continue;
      total++;
      var entry = [score, i, Math.abs(label.length - whole.length)];
      if (top.length === max && !better(entry, top[top.length - 1])) continue;
      var place = top.length;
      while (place > 0 && better(entry, top[place - 1])) place--;
      top.splice(place, 0, entry);
      if (top.length > max) top.pop();
    }
    return { total: total, results: top.map(function (t) { return index[t[1]]; }), matches: matches,
      address: false };
  }
  /**
   * A word's letters as bits (a–z, and the rest folded onto six more): a word one or two edits away from another has at
   * most two letters the other lacks, so two words whose bits differ by three or more are never compared letter by
   * letter.
   */
  function lettersOf(word) {
    var bits = 0;
    for (var i = 0; i < word.length; i++) {
      var c = word.charCodeAt(i);
      bits |= 1 << (c >= 97 && c <= 122 ? c - 97 : 26 + (c % 6));
    }
    return bits;
  }
  function bitCount(n) {
    n = n - ((n >>> 1) & 0x55555555);
    n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
    return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  /** Three rows of the edit distance's table, kept between calls: a keystroke allocates none. */
  var rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];
  /**
   * The edit distance of a and b (a letter added, left out, changed, or two neighbours swapped), or max + 1 as soon as
   * it must be more than max.
   */
  function distance(a, b, max) {
    if (Math.abs(a.length - b.length) > max) return max + 1;
    if (b.length + 1 > rows[0].length) rows = [0, 1, 2].map(function () { return new Int32Array(b.length + 1); });
    var before = rows[0], previous = rows[1], row = rows[2];
    for (var j = 0; j <= b.length; j++) previous[j] = j;
    for (var i = 1; i <= a.length; i++) {
      row[0] = i;
      var least = i;
      var ai = a.charCodeAt(i - 1);
      for (j = 1; j <= b.length; j++) {
        var bj = b.charCodeAt(j - 1);
        var d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ai === bj ? 0 : 1));
        if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
          d = Math.min(d, before[j - 2] + 1);
        }
        row[j] = d;
        if (d < least) least = d;
      }
      if (least > max) return max + 1;
      var spare = before;
      before = previous;
      previous = row;
      row = spare;
    }
    return previous[b.length];
  }
  /**
   * The words of the labels, folded, by length: each length's words, how many labels have each, and their letters'
   * bits. Made once, when the page is idle after loading or at the first correction.
   */
  var vocabulary = null;
  /** The correction found for each word, while the index is the same. */
  var corrections = null;
  function vocabularyOf(index) {
    prepare(index);
    if (vocabulary !== null) return vocabulary;
    var counts = new Map();
    for (var i = 0; i < labels.length; i++) {
      var parts = labels[i].split(/[^\\p{L}\\p{N}]+/u);
      for (var k = 0; k < parts.length; k++) {
        if (parts[k].length >= 3) counts.set(parts[k], (counts.get(parts[k]) || 0) + 1);
      }
    }
    vocabulary = { counts: counts, byLength: [] };
    var order = 0;
    counts.forEach(function (n, word) {
      var bucket = vocabulary.byLength[word.length];
      if (!bucket) bucket = vocabulary.byLength[word.length] = { words: [], counts: [], letters: [], order: [] };
      bucket.order.push(order++);
      bucket.words.push(word);
      bucket.counts.push(n);
      bucket.letters.push(lettersOf(word));
    });
    corrections = new Map();
    return vocabulary;
  }
  /**
   * The label word one or two edits from term, the closest first, then the most frequent, then the first in the
   * labels; null when none is.
   */
  function correctionOf(term) {
    if (corrections.has(term)) return corrections.get(term);
    var best = null, bestDistance = 3, bestCount = 0, bestOrder = 0;
    var letters = lettersOf(term);
    // Only words whose length is at most two off can be two edits away.
    for (var length = Math.max(3, term.length - 2); length <= term.length + 2; length++) {
      var bucket = vocabulary.byLength[length];
      if (!bucket) continue;
      for (var w = 0; w < bucket.words.length; w++) {
        var other = bucket.letters[w];
        if (bitCount(letters & ~other) > 2 || bitCount(other & ~letters) > 2) continue;
        var d = distance(term, bucket.words[w], Math.min(2, bestDistance));
        var n = bucket.counts[w];
        // Ties go to the word the labels have first.
        if (d <= 2 && (d < bestDistance || (d === bestDistance && (n > bestCount ||
          (n === bestCount && bucket.order[w] < bestOrder))))) {
          best = bucket.words[w]; bestDistance = d; bestCount = n; bestOrder = bucket.order[w];
        }
      }
    }
    corrections.set(term, best);
    return best;
  }
  function cvCorrect(index, query) {
    var words = vocabularyOf(index).counts;
    var changed = false;
    var replaced = termsOf(query).map(function (term) {
      if (term.length < 5 || words.has(term)) return term;
      var best = correctionOf(term);
      if (best === null) return term;
      changed = true;
      return best;
    });
    return changed ? replaced.join(' ') : null;
  }
  window.cvSearch = cvSearch;
  window.cvCorrect = cvCorrect;
  window.cvFold = fold;
  if (typeof document === 'undefined') return;
  var input = document.getElementById('q');
  var view = document.getElementById('search-view');
  var front = document.getElementById('front-content');
  var list = document.getElementById('results');
  var status = document.getElementById('search-status');
  var more = document.getElementById('more-results');
  var facets = document.getElementById('facets');
  var shownQuery = document.getElementById('search-query');
  var clear = document.getElementById('clear-search');
  // On paper the header (and its search box) is left out: this line says what the results are for.
  var printed = document.getElementById('search-printed');
  if (!input || !list || !status || !more || !view) return;
  var index = window.cvSearchIndex || [];
  var names = window.cvCollectionNames || {};
  var previous = { query: '', matches: null };
  /** The last correction searched (Did you mean), and its matches. */
  var corrected = { query: '', matches: null };
  var limit = STEP;
  var params = new URLSearchParams(location.search);
  /** The facets chosen: a collection's API name and a status, or '' for any. */
  var chosen = { collection: params.get('collection') || '', status: params.get('status') || '' };
  prepare(index); // at load, not on the first keystroke
  // The words a correction looks among, once the page is idle: not on the first mistyped keystroke.
  (window.requestIdleCallback || function (run) { setTimeout(run, 200); })(function () { vocabularyOf(index); });
  /** text into parent, each place where one of terms matches it (folded) marked. */
  function marked(parent, text, terms) {
    var folded = fold(text);
    var at = null;
    if (folded.length !== text.length) {
      // Folding changed the length (ß as ss): each folded letter's place in the text, letter by letter.
      folded = '';
      at = [];
      for (var i = 0; i < text.length; i++) {
        var piece = fold(text.charAt(i));
        for (var k = 0; k < piece.length; k++) at.push(i);
        folded += piece;
      }
      at.push(text.length);
    }
    function place(n) { return at === null ? n : at[n]; }
    var marks = [];
    terms.forEach(function (term) {
      if (term === '') return;
      for (var from = folded.indexOf(term); from >= 0; from = folded.indexOf(term, from + term.length)) {
        marks.push([place(from), place(from + term.length - 1) + 1]);
      }
    });
    marks.sort(function (a, b) { return a[0] - b[0]; });
    var done = 0;
    marks.forEach(function (m) {
      if (m[0] < done) return;
      if (m[0] > done) parent.appendChild(document.createTextNode(text.slice(done, m[0])));
      var mark = document.createElement('mark');
      mark.textContent = text.slice(m[0], m[1]);
      parent.appendChild(mark);
      done = m[1];
    });
    if (done < text.length) parent.appendChild(document.createTextNode(text.slice(done)));
  }
  function item(entry, terms) {
    var li = document.createElement('li');
    var link = document.createElement('a');
    link.href = entry[0];
    marked(link, entry[1], terms);
    var where = document.createElement('span');
    where.className = 'muted';
    where.textContent = ' · ' + (names[entry[3]] || entry[3]) +
      (entry[6] ? ' · community ' + entry[6] : '') + (entry[2] ? ' · ' + entry[2] : '');
    li.appendChild(link);
    li.appendChild(where);
    if (entry[7]) {
      var definition = document.createElement('p');
      definition.className = 'excerpt';
      marked(definition, entry[7], terms);
      li.appendChild(definition);
    }
    return li;
  }
  function keep(i) {
    return (chosen.collection === '' || index[i][3] === chosen.collection) &&
      (chosen.status === '' || index[i][2] === chosen.status);
  }
  /** One facet: "All", then each value of the matches with its count (the other facet applied), most first. */
  function facet(title, key, counts, label) {
    var values = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : 1); });
    if (values.length === 0 || (values.length === 1 && values[0] === '' && chosen[key] === '')) return null;
    if (chosen[key] !== '' && !(chosen[key] in counts)) values.push(chosen[key]);
    var set = document.createElement('fieldset');
    var legend = document.createElement('legend');
    legend.textContent = title;
    set.appendChild(legend);
    var all = 0;
    Object.keys(counts).forEach(function (v) { all += counts[v]; });
    [''].concat(values).forEach(function (value, n) {
      if (n > 0 && value === '') return;
      var option = document.createElement('label');
      var radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = 'facet-' + key;
      radio.value = value;
      radio.checked = chosen[key] === value;
      radio.addEventListener('change', function () {
        chosen[key] = value;
        limit = STEP;
        previous = corrected = { query: '', matches: null };
        show(input.value);
        remember(input.value);
      });
      var name = document.createElement('span');
      name.textContent = value === '' ? 'All' : label(value);
      var count = document.createElement('span');
      count.className = 'count';
      count.textContent = String(value === '' ? all : counts[value] || 0);
      option.appendChild(radio);
      option.appendChild(name);
      option.appendChild(count);
      set.appendChild(option);
    });
    return set;
  }
  function drawFacets(matches) {
    if (!facets) return;
    var byCollection = {}, byStatus = {};
    for (var k = 0; k < matches.length; k++) {
      var e = index[matches[k]];
      if (chosen.status === '' || e[2] === chosen.status) byCollection[e[3]] = (byCollection[e[3]] || 0) + 1;
      if (chosen.collection === '' || e[3] === chosen.collection) byStatus[e[2]] = (byStatus[e[2]] || 0) + 1;
    }
    facets.textContent = '';
    var parts = [facet('Collection', 'collection', byCollection, function (c) { return names[c] || c; }),
      facet('Status', 'status', byStatus, function (s) { return s === '' ? 'No status' : s; })];
    parts.forEach(function (part) { if (part) facets.appendChild(part); });
  }
  function show(query) {
    var trimmed = query.trim();
    view.hidden = trimmed === '';
    if (front) front.hidden = trimmed !== '';
    if (shownQuery) shownQuery.textContent = trimmed;
    var folded = fold(query);
    var narrower = previous.matches !== null && previous.query.trim() !== '' && folded.indexOf(previous.query) === 0;
    var found = cvSearch(index, query, limit, narrower && !previous.address ? previous.matches : undefined, keep);
    previous = { query: folded, matches: found.matches, address: found.address };
    var terms = termsOf(query);
    var correction = null;
    if (found.matches.length === 0 && !found.address && trimmed !== '') {
      correction = cvCorrect(index, query);
      if (correction !== null) {
        // As the query: a correction that extends the last one is searched within that one's matches. The query's
        // own matches (none) stay in previous, so the next keystroke finds at once that it matches nothing either.
        var foldedCorrection = fold(correction);
        var within = corrected.matches !== null && corrected.query !== '' &&
          foldedCorrection.indexOf(corrected.query) === 0 ? corrected.matches : undefined;
        found = cvSearch(index, correction, limit, within, keep);
        corrected = { query: foldedCorrection, matches: found.matches };
        terms = termsOf(correction);
      }
    }
    var total = found.total;
    list.textContent = '';
    found.results.forEach(function (entry) { list.appendChild(item(entry, found.address ? [] : terms)); });
    drawFacets(found.address ? [] : found.matches);
    var shown = found.results.length;
    more.hidden = total <= shown;
    more.textContent = 'Show ' + Math.min(STEP, total - shown) + ' more';
    if (printed) printed.textContent = trimmed === '' ? '' : 'Search results for \\u201c' + trimmed + '\\u201d';
    var count = total === 0 ? 'No record matches.' :
      total > shown ? total + ' records match; the best ' + shown + ' are shown.' :
      total + (total === 1 ? ' record matches.' : ' records match.');
    status.textContent = trimmed === '' ? '' :
      found.address ? 'This address is a record of this snapshot: press Enter to open it.' :
      correction !== null && found.matches.length > 0 ?
        'No record matches \\u201c' + trimmed + '\\u201d. Did you mean \\u201c' + correction + '\\u201d? ' + count :
      count;
  }
  function remember(query) {
    var next = new URLSearchParams();
    if (query) next.set('q', query);
    if (query && chosen.collection) next.set('collection', chosen.collection);
    if (query && chosen.status) next.set('status', chosen.status);
    var search = next.toString();
    try {
      history.replaceState(null, '', search ? '?' + search : location.pathname);
    } catch (e) { /* some browsers refuse on file:// */ }
  }
  function links() { return list.querySelectorAll('li > a'); }
  /**
   * The address follows the query once typing pauses: replacing it on every keystroke costs as much as a search. It is
   * brought up to date at once before the page is left (a result followed, Enter, the page hidden).
   */
  var pending = null;
  function rememberSoon() {
    clearTimeout(pending);
    pending = setTimeout(rememberNow, 300);
  }
  function rememberNow() {
    if (pending === null) return;
    clearTimeout(pending);
    pending = null;
    remember(input.value);
  }
  input.addEventListener('input', function () {
    limit = STEP;
    show(input.value);
    rememberSoon();
  });
  list.addEventListener('click', rememberNow, true);
  window.addEventListener('pagehide', rememberNow);
  more.addEventListener('click', function () {
    var focus = links().length;
    limit += STEP;
    previous = corrected = { query: '', matches: null };
    show(input.value);
    var next = links()[focus];
    if (next) next.focus();
  });
  if (clear) {
    clear.addEventListener('click', function (event) {
      event.preventDefault();
      input.value = '';
      chosen = { collection: '', status: '' };
      show('');
      clearTimeout(pending);
      pending = null;
      remember('');
      input.focus();
    });
  }
  input.form.addEventListener('submit', function (event) {
    event.preventDefault();
    rememberNow();
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
  var initial = params.get('q');
  if (initial) { input.value = initial; show(initial); }
})();
`;
