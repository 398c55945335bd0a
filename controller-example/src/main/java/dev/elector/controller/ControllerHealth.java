package dev.elector.controller;

/**
 * The controller's liveness: its electors' health, with the webhook certificate's when it serves
 * the webhook.
 *
 * @param healthy whether the liveness probe passes
 * @param detail one line on what the controller is doing, or on what is wrong
 */
public record ControllerHealth(boolean healthy, String detail) {}
