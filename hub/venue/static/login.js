/* The PIN form: sent as JSON so a refusal (wrong PIN, locked) is shown without leaving the page.
   Without JavaScript the form posts normally and the server answers with this page. */
"use strict";
(() => {
  const form = document.getElementById("login");
  const message = document.getElementById("message");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    message.replaceChildren();
    try {
      const r = await fetch("/referee/login", {
        method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
        body: JSON.stringify({ who: form.who.value, pin: form.pin.value }),
      });
      const data = await r.json();
      if (r.ok && data.ok) {
        location.assign("/referee");
        return;
      }
      const en = document.createElement("span");
      en.className = "en";
      en.textContent = data.en || "";
      message.replaceChildren(document.createTextNode(data.zh || "登录失败"), document.createElement("br"), en);
      form.pin.value = "";
      form.pin.focus();
    } catch (err) {
      message.textContent = "无法连接服务器 / cannot reach the venue server";
    } finally {
      button.disabled = false;
    }
  });
})();
