/**
 * The script of the collection and record pages (`_catalogue/catalogue.js`). Without it every page still reads and
 * browses; with it:
 * - a collection page gets a filter box, a status filter (where its records have a status) and sortable columns over
 *   the whole collection (not only the 500 rows of the page): the rows come from `rows.js` beside the page
 *   (`window.cvRows`, one array per record: its page, its status, then one cell per column, each a text or a
 *   `[text, href]` link), and at most 500 are drawn at a time, with a button for more, so a collection of any size
 *   stays light; the filter, the status and the order are kept in the address (`?q=…&status=…&sort=…`);
 * - a record page gets buttons that copy its URI and the other parts of its citation.
 * Everything is drawn with DOM calls and textContent, never as HTML: source text stays text.
 */

import { FOLD } from './search.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ#';

/**
 * A collection's A–Z index: a link per first letter its labels have (`page-1.html?letter=K`: the letter's records
 * of the whole collection, by label), hidden until the script, which reads the letter, shows it.
 */
export function letterIndex(letters: Set<string>): string {
  if (letters.size < 2) return '';
  const links = [...LETTERS]
    .filter((letter) => letters.has(letter))
    .map((letter) => `<a href="page-1.html?letter=${encodeURIComponent(letter)}">${letter}</a>`);
  return (
    `<nav class="letters" id="letters" aria-label="Terms by first letter" hidden>${links.join(' ')} ` +
    '<a href="page-1.html">All</a></nav>\n'
  );
}

/** A cell of a collection row: text, or a link (text, href relative to the collection's folder). */
export type Cell = string | [string, string];

export interface CollectionRow {
  /** The record's page, relative to the collection's folder. */
  page: string;
  status: string;
  /** One per column; the second is the record's label (drawn as the link to its page). */
  cells: Cell[];
}

export function rowsScript(rows: string[]): string[] {
  return ['window.cvRows = [\n', rows.join(',\n'), '\n];\n'];
}

export function rowEntry(row: CollectionRow): string {
  return JSON.stringify([row.page, row.status, ...row.cells]);
}

/** Hidden until the script shows it: without JavaScript there is nothing to use. */
export function tableTools(withStatus: boolean): string {
  return (
    '<div class="table-tools" id="table-tools" hidden>\n' +
    '<label for="filter">Filter this collection</label>\n' +
    '<input type="search" id="filter" autocomplete="off">\n' +
    (withStatus
      ? '<label for="status-filter">Status</label>\n<select id="status-filter"><option value="">Any</option></select>\n'
      : '') +
    '<p id="table-status" role="status"></p>\n</div>\n'
  );
}

export const PAGE_SCRIPT = `(function () {
  'use strict';
  var SHOWN = 500;
  ${FOLD}
  function letterOf(label) {
    var first = fold(label).charAt(0).toUpperCase();
    return /[A-Z]/.test(first) ? first : '#';
  }

  function copyButtons() {
    var codes = document.querySelectorAll('code.uri, code.copyable');
    Array.prototype.forEach.call(codes, function (code) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = code.getAttribute('data-copy') || 'Copy URI';
      button.addEventListener('click', function () {
        var text = code.textContent;
        var done = function () { button.textContent = 'Copied'; };
        var fallback = function () {
          var range = document.createRange();
          range.selectNodeContents(code);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          try { if (document.execCommand('copy')) { done(); return; } } catch (e) { /* refused */ }
          button.textContent = 'Selected: press Ctrl+C';
        };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
        else fallback();
      });
      code.parentNode.insertBefore(button, code.nextSibling);
    });
  }

  function text(cell) { return typeof cell === 'string' ? cell : cell[0]; }

  function table() {
    var rows = window.cvRows;
    var tools = document.getElementById('table-tools');
    var body = document.querySelector('table.records tbody');
    if (!rows || !tools || !body) return;
    var filter = document.getElementById('filter');
    var statusFilter = document.getElementById('status-filter');
    var status = document.getElementById('table-status');
    var pages = document.querySelectorAll('nav.pages');
    var headers = document.querySelectorAll('table.records thead th');
    var names = Array.prototype.map.call(headers, function (th) { return th.textContent; });
    var statusColumn = -1;
    Array.prototype.forEach.call(headers, function (th, i) { if (th.hasAttribute('data-status')) statusColumn = i; });
    var original = body;
    var sortColumn = -1;
    var descending = false;
    var letter = new URLSearchParams(location.search).get('letter') || '';
    var limit = SHOWN;
    var more = document.createElement('button');
    more.type = 'button';
    more.className = 'more';
    more.hidden = true;
    more.addEventListener('click', function () { limit += SHOWN; draw(); });
    body.parentNode.parentNode.appendChild(more);

    if (statusFilter) {
      var statuses = {};
      rows.forEach(function (row) { if (row[1]) statuses[row[1]] = true; });
      Object.keys(statuses).sort().forEach(function (value) {
        var option = document.createElement('option');
        option.value = value;
        option.textContent = value;
        statusFilter.appendChild(option);
      });
    }

    function compare(a, b) {
      var x = text(a[sortColumn + 2]), y = text(b[sortColumn + 2]);
      var order = x.localeCompare(y, undefined, { numeric: true, sensitivity: 'base' });
      return descending ? -order : order;
    }

    function cell(tr, value, column) {
      var td = document.createElement('td');
      if (column === statusColumn && value) {
        var span = document.createElement('span');
        var known = value === 'ACCEPTED' || value === 'PENDING';
        span.className = 'badge' + (known ? ' badge-' + value.toLowerCase() : '');
        span.textContent = value;
        td.appendChild(span);
      } else if (typeof value !== 'string') {
        var link = document.createElement('a');
        link.href = value[1];
        link.textContent = value[0];
        td.appendChild(link);
      } else {
        td.textContent = value;
      }
      tr.appendChild(td);
    }

    function remember() {
      var params = new URLSearchParams();
      if (filter.value) params.set('q', filter.value);
      if (statusFilter && statusFilter.value) params.set('status', statusFilter.value);
      if (sortColumn >= 0) params.set('sort', (descending ? '-' : '') + names[sortColumn]);
      if (letter) params.set('letter', letter);
      var query = params.toString();
      try { history.replaceState(null, '', query ? '?' + query : location.pathname); } catch (e) { /* file:// */ }
    }

    function draw() {
      remember();
      var words = filter.value.toLowerCase().split(/\\s+/).filter(function (w) { return w !== ''; });
      var wanted = statusFilter ? statusFilter.value : '';
      var active = words.length > 0 || wanted !== '' || sortColumn >= 0 || letter !== '';
      Array.prototype.forEach.call(pages, function (nav) { nav.hidden = active; });
      var current = document.querySelector('table.records tbody');
      if (!active) {
        if (current !== original) current.parentNode.replaceChild(original, current);
        more.hidden = true;
        status.textContent = '';
        return;
      }
      var found = rows.filter(function (row) {
        if (wanted !== '' && row[1] !== wanted) return false;
        if (letter !== '' && letterOf(row[3]) !== letter) return false;
        var all = row.slice(2).map(text).join(' ').toLowerCase();
        return words.every(function (w) { return all.indexOf(w) >= 0; });
      });
      if (sortColumn >= 0) found.sort(compare);
      else if (letter !== '') {
        found.sort(function (a, b) { var x = fold(a[3]), y = fold(b[3]); return x < y ? -1 : x > y ? 1 : 0; });
      }
      var fresh = document.createElement('tbody');
      found.slice(0, limit).forEach(function (row) {
        var tr = document.createElement('tr');
        row.slice(2).forEach(function (value, column) {
          cell(tr, column === 1 ? [value, row[0]] : value, column);
        });
        fresh.appendChild(tr);
      });
      current.parentNode.replaceChild(fresh, current);
      var shown = Math.min(limit, found.length);
      more.hidden = found.length <= limit;
      more.textContent = 'Show ' + Math.min(SHOWN, found.length - shown) + ' more';
      status.textContent = found.length + ' of ' + rows.length + ' records' +
        (found.length > shown ? '; the first ' + shown + ' are shown.' : '.');
    }

    function sortBy(column, down) {
      descending = down;
      sortColumn = column;
      Array.prototype.forEach.call(headers, function (other) { other.setAttribute('aria-sort', 'none'); });
      headers[column].setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    }

    Array.prototype.forEach.call(headers, function (th, column) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.textContent = names[column];
      th.textContent = '';
      th.appendChild(button);
      th.setAttribute('aria-sort', 'none');
      var table = th.closest('table');
      if (table) table.classList.add('sorting');
      button.addEventListener('click', function () {
        sortBy(column, sortColumn === column ? !descending : false);
        limit = SHOWN;
        draw();
      });
    });
    filter.addEventListener('input', function () { limit = SHOWN; draw(); });
    if (statusFilter) statusFilter.addEventListener('change', function () { limit = SHOWN; draw(); });
    tools.hidden = false;

    // An address with ?q=, ?status= or ?sort= opens with them applied.
    var params = new URLSearchParams(location.search);
    var sort = params.get('sort') || '';
    var sortAt = names.indexOf(sort.replace(/^-/, ''));
    if (params.get('q')) filter.value = params.get('q');
    if (statusFilter && params.get('status')) statusFilter.value = params.get('status');
    if (sortAt >= 0) sortBy(sortAt, sort.charAt(0) === '-');
    var letters = document.getElementById('letters');
    if (letters) {
      letters.hidden = false;
      Array.prototype.forEach.call(letters.querySelectorAll('a'), function (a) {
        if (a.textContent === (letter || 'All')) a.setAttribute('aria-current', 'true');
      });
    }
    if (filter.value || (statusFilter && statusFilter.value) || sortAt >= 0 || letter) draw();
  }

  function snapshotTime() {
    var snapshot = window.cvSnapshot;
    if (!snapshot) return;
    Array.prototype.forEach.call(document.querySelectorAll('time.snapshot-time'), function (time) {
      time.setAttribute('datetime', snapshot.createdAt);
      time.textContent = snapshot.text;
    });
  }

  snapshotTime();
  copyButtons();
  table();
})();
`;
