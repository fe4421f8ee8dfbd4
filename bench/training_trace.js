() => {
  window.trace = [];
  const read = () => {
    const bar = document.querySelector('[data-testid=stProgress]');
    const step = bar ? /step (\d+) of at most/.exec(bar.textContent) : null;
    const alerts = [...document.querySelectorAll('[data-testid=stAlert]')].map(a => a.textContent).join(' ');
    const queued = /number (\d+) in the queue/.exec(alerts);
    const row = [Date.now(), step ? +step[1] : -1, queued ? +queued[1] : 0,
                 /Done at step \d+: the target is reached/.test(alerts)];
    const last = window.trace[window.trace.length - 1];
    if (!last || last.slice(1).some((value, i) => value !== row[i + 1])) window.trace.push(row);
  };
  new MutationObserver(read).observe(document.body, {childList: true, subtree: true, characterData: true});
  read();
}
