// Copy buttons: a button with data-copy="ID" copies the text of the
// element with that id (the token shown once) and says so.
document.addEventListener("click", function (e) {
  var b = e.target.closest ? e.target.closest("button[data-copy]") : null;
  if (!b) { return; }
  var el = document.getElementById(b.getAttribute("data-copy"));
  if (!el) { return; }
  var done = function (words) { b.textContent = words; };
  if (!navigator.clipboard) { done("Select it and copy"); return; }
  navigator.clipboard.writeText(el.textContent.trim()).then(function () { done("Copied"); }, function () { done("Select it and copy"); });
});
