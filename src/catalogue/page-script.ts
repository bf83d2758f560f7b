/**
 * The script of the collection and record pages (`_catalogue/catalogue.js`). Without it every page still reads and
 * browses; with it:
 * - a collection page gets a filter box, a status filter and sortable columns over the whole collection (not only the
 *   500 rows of the page): the rows come from `rows.js` beside the page (`window.cvRows`, one array per record: id,
 *   label, status, definition excerpt, provenance excerpt, page), and at most 500 are drawn at a time, with a button
 *   for more, so a collection of any size stays light;
 * - a record page gets a button that copies the record's URI.
 * Everything is drawn with DOM calls and textContent, never as HTML: source text stays text.
 */

export interface CollectionRow {
  id: string;
  label: string;
  status: string;
  definition: string;
  provenance: string;
  /** The record's page, relative to the collection's folder. */
  page: string;
}

export function rowsScript(rows: string[]): string[] {
  return ['window.cvRows = [\n', rows.join(',\n'), '\n];\n'];
}

export function rowEntry(row: CollectionRow): string {
  return JSON.stringify([row.id, row.label, row.status, row.definition, row.provenance, row.page]);
}

/** Hidden until the script shows it: without JavaScript there is nothing to use. */
export const TABLE_TOOLS =
  '<div class="table-tools" id="table-tools" hidden>\n' +
  '<label for="filter">Filter this collection</label>\n' +
  '<input type="search" id="filter" autocomplete="off">\n' +
  '<label for="status-filter">Status</label>\n' +
  '<select id="status-filter"><option value="">Any</option></select>\n' +
  '<p id="table-status" role="status"></p>\n</div>\n';

export const PAGE_SCRIPT = `(function () {
  'use strict';
  var SHOWN = 500;
  var COLUMNS = ['Id', 'Term or name', 'Status', 'Definition', 'Provenance'];

  function copyButtons() {
    var uris = document.querySelectorAll('code.uri');
    Array.prototype.forEach.call(uris, function (code) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = 'Copy URI';
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
    var original = body;
    var sortColumn = -1;
    var descending = false;
    var limit = SHOWN;
    var more = document.createElement('button');
    more.type = 'button';
    more.className = 'more';
    more.hidden = true;
    more.addEventListener('click', function () { limit += SHOWN; draw(); });
    body.parentNode.parentNode.appendChild(more);

    var statuses = {};
    rows.forEach(function (row) { if (row[2]) statuses[row[2]] = true; });
    Object.keys(statuses).sort().forEach(function (value) {
      var option = document.createElement('option');
      option.value = value;
      option.textContent = value;
      statusFilter.appendChild(option);
    });

    function compare(a, b) {
      var x = a[sortColumn], y = b[sortColumn];
      var order = x.localeCompare(y, undefined, { numeric: true, sensitivity: 'base' });
      return descending ? -order : order;
    }

    function cell(tr, text) {
      var td = document.createElement('td');
      td.textContent = text;
      tr.appendChild(td);
      return td;
    }

    function draw() {
      var words = filter.value.toLowerCase().split(/\\s+/).filter(function (w) { return w !== ''; });
      var wanted = statusFilter.value;
      var active = words.length > 0 || wanted !== '' || sortColumn >= 0;
      Array.prototype.forEach.call(pages, function (nav) { nav.hidden = active; });
      var current = document.querySelector('table.records tbody');
      if (!active) {
        if (current !== original) current.parentNode.replaceChild(original, current);
        more.hidden = true;
        status.textContent = '';
        return;
      }
      var found = rows.filter(function (row) {
        if (wanted !== '' && row[2] !== wanted) return false;
        var text = (row[0] + ' ' + row[1] + ' ' + row[3] + ' ' + row[4]).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) >= 0; });
      });
      if (sortColumn >= 0) found.sort(compare);
      var fresh = document.createElement('tbody');
      found.slice(0, limit).forEach(function (row) {
        var tr = document.createElement('tr');
        cell(tr, row[0]);
        var link = document.createElement('a');
        link.href = row[5];
        link.textContent = row[1];
        cell(tr, '').appendChild(link);
        var badge = cell(tr, '');
        if (row[2]) {
          var span = document.createElement('span');
          var known = row[2] === 'ACCEPTED' || row[2] === 'PENDING';
          span.className = 'badge' + (known ? ' badge-' + row[2].toLowerCase() : '');
          span.textContent = row[2];
          badge.appendChild(span);
        }
        cell(tr, row[3]);
        cell(tr, row[4]);
        fresh.appendChild(tr);
      });
      current.parentNode.replaceChild(fresh, current);
      var shown = Math.min(limit, found.length);
      more.hidden = found.length <= limit;
      more.textContent = 'Show ' + Math.min(SHOWN, found.length - shown) + ' more';
      status.textContent = found.length + ' of ' + rows.length + ' records' +
        (found.length > shown ? '; the first ' + shown + ' are shown.' : '.');
    }

    Array.prototype.forEach.call(headers, function (th, column) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.textContent = COLUMNS[column] || th.textContent;
      th.textContent = '';
      th.appendChild(button);
      th.setAttribute('aria-sort', 'none');
      button.addEventListener('click', function () {
        descending = sortColumn === column ? !descending : false;
        sortColumn = column;
        Array.prototype.forEach.call(headers, function (other) { other.setAttribute('aria-sort', 'none'); });
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        limit = SHOWN;
        draw();
      });
    });
    filter.addEventListener('input', function () { limit = SHOWN; draw(); });
    statusFilter.addEventListener('change', function () { limit = SHOWN; draw(); });
    tools.hidden = false;
  }

  copyButtons();
  table();
})();
`;
