/**
 * The rules of the HTTP edge, free of the servlet container so that they can be tested alone: Basic
 * credentials, request origins, media types, body limits and the strict JSON reading of requests.
 */
package dev.mailqueue.http.control;
