// Renders the live /openapi.json. It is a file, not an inline script, so the
// page's Content-Security-Policy can refuse every inline script.
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null, // never send the document to validator.swagger.io
    defaultModelsExpandDepth: 0,
  });
})();
