// Presence: the person's passkey confirms what they are about to do.
// Served by the Go library github.com/affordances-go/affordances
// (package site/presence).
//
// A form marked data-presence (a people-only action, or an approval) is
// not posted at once: the script asks the site for a challenge bound to
// exactly the fields the form will post (or takes the one the approval
// page carries), asks the browser for a user-verified assertion of one of
// the person's passkeys, puts it in the form's _presence field, and posts
// the form. A person without a passkey gets no challenge, and the form is
// posted as it is. A form marked data-passkey-register first creates a new
// passkey and puts it in its credential and nonce fields; a form marked
// data-passkey-signin signs in with a passkey.
(function () {
  "use strict";
  var base = "/_affordances/presence";

  function bytes(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }
  function text(buf) {
    var b = new Uint8Array(buf), s = "";
    for (var i = 0; i < b.length; i++) { s += String.fromCharCode(b[i]); }
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function requestOptions(pk) {
    pk.challenge = bytes(pk.challenge);
    (pk.allowCredentials || []).forEach(function (c) { c.id = bytes(c.id); });
    return { publicKey: pk };
  }
  function creationOptions(pk) {
    pk.challenge = bytes(pk.challenge);
    pk.user.id = bytes(pk.user.id);
    (pk.excludeCredentials || []).forEach(function (c) { c.id = bytes(c.id); });
    return { publicKey: pk };
  }
  function assertion(c) {
    return {
      id: c.id, rawId: text(c.rawId), type: c.type,
      response: {
        clientDataJSON: text(c.response.clientDataJSON),
        authenticatorData: text(c.response.authenticatorData),
        signature: text(c.response.signature),
        userHandle: c.response.userHandle ? text(c.response.userHandle) : null
      },
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {}
    };
  }
  function attestation(c) {
    return {
      id: c.id, rawId: text(c.rawId), type: c.type,
      response: {
        clientDataJSON: text(c.response.clientDataJSON),
        attestationObject: text(c.response.attestationObject),
        transports: c.response.getTransports ? c.response.getTransports() : []
      },
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {}
    };
  }
  function post(path, body) {
    return fetch(base + path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json" },
      body: body
    }).then(function (res) {
      if (res.ok) { return res.json(); }
      // A refusal of the site's own (a wrong password): its words, and
      // the fields they are about.
      return res.json().then(function (r) {
        var err = new Error(r && r.message ? r.message : "the site answered " + res.status);
        err.refusal = r || {};
        throw err;
      }, function () { throw new Error("the site answered " + res.status); });
    });
  }
  function field(form, name) {
    var el = form.elements.namedItem(name);
    if (!el) {
      el = document.createElement("input");
      el.type = "hidden"; el.name = name;
      form.appendChild(el);
    }
    return el;
  }
  // words says what went wrong in the person's words: never a DOM
  // error's name.
  function words(err) {
    switch (err && err.name) {
      case "NotAllowedError":
        return "the prompt was closed or timed out, or your device said no.";
      case "SecurityError":
        return "passkeys work only at this site's own address (" + location.hostname + " is not it: in development, open it at localhost).";
      case "InvalidStateError":
        return "this device already has a passkey for your account here.";
      case "AbortError":
        return "the prompt was cancelled.";
    }
    return "something went wrong (" + (err && err.message ? err.message : err) + ").";
  }
  function clearMarks(form) {
    form.querySelectorAll(".presence-field-error").forEach(function (el) { el.remove(); });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }
  // mark puts each refused field's words beside it.
  function mark(form, issues) {
    (issues || []).forEach(function (i) {
      var el = form.elements.namedItem(String(i.path || "").replace(/^\//, ""));
      if (!el || !el.parentNode) { return; }
      var note = document.createElement("span");
      note.className = "field-error presence-field-error";
      note.id = el.name + "-presence-error";
      note.textContent = i.message;
      el.setAttribute("aria-invalid", "true");
      el.setAttribute("aria-describedby", note.id);
      el.parentNode.insertBefore(note, el.nextSibling);
      el.focus();
    });
  }
  function fail(form, err) {
    var p = form.querySelector(".presence-error");
    if (!p) {
      p = document.createElement("p");
      p.className = "presence-error form-error";
      p.setAttribute("role", "alert");
      form.appendChild(p);
    }
    if (err && err.refusal) {
      mark(form, err.refusal.issues);
      p.textContent = (err.refusal.issues && err.refusal.issues.length ? "Check the field marked above. " : err.message + " ") + "Nothing was done.";
    } else {
      p.textContent = "Your passkey did not confirm this: " + words(err) + " Nothing was done.";
    }
    delete form.dataset.presenceBusy;
  }

  // register creates the passkey a register form adds, before anything else.
  function register(form) {
    if (!form.hasAttribute("data-passkey-register") || field(form, "credential").value) {
      return Promise.resolve();
    }
    // The form's fields go first (the site may check the password typed
    // again): a refused form makes no passkey.
    var data = new FormData(form);
    ["credential", "nonce", "_presence"].forEach(function (f) { data.delete(f); });
    return post("/register", new URLSearchParams(data).toString()).then(function (ask) {
      return navigator.credentials.create(creationOptions(ask.publicKey)).then(function (c) {
        field(form, "credential").value = JSON.stringify(attestation(c));
        field(form, "nonce").value = ask.nonce;
      });
    });
  }

  // confirm asks the passkey for what the form will post.
  function confirm(form) {
    var inline = form.getAttribute("data-presence-options");
    var ask;
    if (inline) {
      var el = document.getElementById(inline);
      ask = Promise.resolve(el ? JSON.parse(el.textContent) : {});
    } else {
      var data = new FormData(form);
      data.delete("_presence");
      var body = new URLSearchParams(data);
      body.set("_page", new URL(form.action || location.href, location.href).pathname);
      ask = post("", body.toString());
    }
    return ask.then(function (a) {
      if (!a || !a.publicKey) { return; }
      return navigator.credentials.get(requestOptions(a.publicKey)).then(function (c) {
        field(form, "_presence").value = JSON.stringify({ nonce: a.nonce, credential: assertion(c) });
      });
    });
  }

  function signIn(form) {
    return post("/signin", "").then(function (ask) {
      return navigator.credentials.get(requestOptions(ask.publicKey)).then(function (c) {
        field(form, "credential").value = JSON.stringify(assertion(c));
        field(form, "nonce").value = ask.nonce;
      });
    });
  }

  document.addEventListener("submit", function (e) {
    var form = e.target, by = e.submitter;
    var marked = form.matches("form[data-presence], form[data-passkey-register], form[data-passkey-signin]");
    if (!marked || form.dataset.presenceDone || !window.PublicKeyCredential) { return; }
    if (by && by.hasAttribute("data-no-presence")) { return; } // declining asks nothing
    e.preventDefault();
    // An agent's WebMCP tool filled this form and the person pressed its
    // button: the browser waits for the tool's answer, and a submission
    // held back without one reaches the agent as the site's error. The
    // answer is what the person's press did; the form itself is then
    // sent as the page's own, and the page it loads shows the outcome.
    // (Another handler may have answered first: the browser then refuses
    // a second answer, which changes nothing here.)
    var answer = !e.agentInvoked || typeof e.respondWith !== "function" ? null : function (p) {
      try { e.respondWith(p); } catch (err) { /* answered already */ }
    };
    if (form.dataset.presenceBusy) {
      if (answer) { answer(Promise.resolve("The form is already being sent: read the page for its outcome.")); }
      return;
    }
    form.dataset.presenceBusy = "1";
    clearMarks(form);
    var steps = form.hasAttribute("data-passkey-signin") ? signIn(form) :
      register(form).then(function () { return form.hasAttribute("data-presence") ? confirm(form) : null; });
    var sent = steps.then(function () {
      form.dataset.presenceDone = "1";
      if (form.requestSubmit) { form.requestSubmit(by || undefined); } else { form.submit(); }
      return "The person pressed the button and the form was sent (with their passkey's confirmation where they have one): read the page for its outcome.";
    }, function (err) {
      fail(form, err);
      if (answer) {
        throw new Error("Nothing was done: " + (err && err.refusal ? err.message : "the person's passkey did not confirm this."));
      }
    });
    if (answer) {
      answer(sent);
      sent.catch(function () { /* the agent's answer, shown to the person by fail */ });
    }
  }, true);
})();
