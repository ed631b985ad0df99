/* A reload of the live view: the address bar no longer has the token (app.js took it out), but this
 * tab's sessionStorage (this origin's only) kept it. Back to the page with it, once: the stored token
 * is dropped first, so a stale one (a new run on the same port) ends here, on the 403 page. */
"use strict";
(() => {
  const token = sessionStorage.getItem("saphira-token");
  sessionStorage.removeItem("saphira-token");
  if (token) location.replace("/?token=" + encodeURIComponent(token));
})();
