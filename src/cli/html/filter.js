// Filtering only: the page is complete without it (<details> expands by itself). Each box's
// query lives in the address (?filter-SCOPE=...), so a filtered view can be shared and reloaded.
document.documentElement.dataset.js = "ready";
// What a filter matches: an item's data-text, a failure group's summary, a name's own text.
const ITEMS = "[data-text], details.group, ul.names > li";
const textOf = (item) =>
  (item.dataset.text ?? (item.matches("details.group") ? item.querySelector(":scope > summary") : item).textContent)
    .toLowerCase();
for (const box of document.querySelectorAll("p.filter")) {
  box.hidden = false;
  const input = box.querySelector("input");
  const scope = document.getElementById(input.dataset.scope);
  const key = "filter-" + input.dataset.scope;
  const items = [...scope.querySelectorAll(ITEMS)];
  const apply = () => {
    const query = input.value.trim().toLowerCase();
    // An item shows when it matches, when an item inside it matches (a group holding a
    // matching name) or when the item it sits in matches (a name in a matching group).
    const shown = new Set();
    for (const item of items) {
      if (query !== "" && !textOf(item).includes(query)) continue;
      shown.add(item);
      for (let up = item.parentElement?.closest(ITEMS); up && scope.contains(up); up = up.parentElement?.closest(ITEMS)) {
        shown.add(up);
      }
      for (const inner of item.querySelectorAll(ITEMS)) shown.add(inner);
    }
    for (const item of items) item.hidden = !shown.has(item);
  };
  input.value = new URLSearchParams(location.search).get(key) ?? "";
  apply();
  input.addEventListener("input", () => {
    apply();
    const params = new URLSearchParams(location.search);
    const query = input.value.trim();
    if (query === "") params.delete(key); else params.set(key, query);
    const search = params.toString();
    try {
      history.replaceState(null, "", (search ? "?" + search : location.pathname) + location.hash);
    } catch (_) {
      // A page opened from a file may not change its address in every browser: the filter works all the same.
    }
  });
}
