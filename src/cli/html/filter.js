// Filtering only: the page is complete without it (<details> expands by itself).
document.documentElement.dataset.js = "ready";
for (const box of document.querySelectorAll("p.filter")) {
  box.hidden = false;
  const input = box.querySelector("input");
  const scope = document.getElementById(input.dataset.scope);
  input.addEventListener("input", () => {
    const query = input.value.trim().toLowerCase();
    for (const item of scope.querySelectorAll("[data-text]")) {
      const hit = query === "" || item.dataset.text.includes(query) ||
        [...item.querySelectorAll("[data-text]")].some((inner) => inner.dataset.text.includes(query));
      item.hidden = !hit;
    }
  });
}
