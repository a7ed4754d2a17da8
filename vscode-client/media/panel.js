// Fourfold results panel: keyboard navigation and click-to-open. The page itself is rendered by the
// extension (src/render.ts); this script only moves focus and posts {type: 'open'} messages.
// Keys: Up/Down move, Home/End jump, Enter/Space open a result or fold a file, Left/Right fold/unfold.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();

  function items() {
    return Array.from(document.querySelectorAll('.hit, .file-head, details.more > summary'))
      .filter((el) => el.offsetParent !== null);
  }

  function focusItem(el) {
    if (!el) return;
    for (const other of document.querySelectorAll('[tabindex="0"]')) other.setAttribute('tabindex', '-1');
    el.setAttribute('tabindex', '0');
    el.focus();
  }

  function open(hit) {
    vscode.postMessage({ type: 'open', uri: hit.dataset.uri, range: hit.dataset.range.split(',').map(Number) });
  }

  function fold(section, expanded) {
    section.setAttribute('aria-expanded', String(expanded));
  }

  function activate(el) {
    if (el.classList.contains('hit')) open(el);
    else if (el.classList.contains('file-head')) {
      const section = el.closest('.file');
      fold(section, section.getAttribute('aria-expanded') !== 'true');
    } else if (el.tagName === 'SUMMARY') {
      el.parentElement.open = !el.parentElement.open;
    }
  }

  document.addEventListener('click', (event) => {
    const el = event.target.closest('.hit, .file-head');
    if (!el) return;
    focusItem(el);
    activate(el);
  });

  document.addEventListener('keydown', (event) => {
    const list = items();
    if (list.length === 0) return;
    const current = list.indexOf(document.activeElement);
    const section = document.activeElement && document.activeElement.closest('.file');
    let next;
    switch (event.key) {
      case 'ArrowDown': next = list[Math.min(current + 1, list.length - 1)]; break;
      case 'ArrowUp': next = list[Math.max(current - 1, 0)]; break;
      case 'Home': next = list[0]; break;
      case 'End': next = list[list.length - 1]; break;
      case 'ArrowLeft':
        if (section) { fold(section, false); next = section.querySelector('.file-head'); }
        break;
      case 'ArrowRight':
        if (section) fold(section, true);
        break;
      case 'Enter':
      case ' ':
        if (current >= 0) { event.preventDefault(); activate(list[current]); }
        return;
      default:
        return;
    }
    event.preventDefault();
    focusItem(next);
  });

  const first = document.querySelector('.hit');
  if (first) first.setAttribute('tabindex', '0');
  window.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'focus') focusItem(document.querySelector('.hit'));
  });
}());
