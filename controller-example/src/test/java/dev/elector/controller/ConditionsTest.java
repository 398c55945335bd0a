package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.ippool.PoolCondition;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  private static final OffsetDateTime T1 =
      OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  private static final OffsetDateTime T2 = T1.plusMinutes(1);
  private static final OffsetDateTime T3 = T1.plusMinutes(2);

  @Test
  void aNewConditionIsStampedWithNow() {
    PoolCondition c =
        new Conditions(List.of(), T1).set("Stopped", false, "Running", "m").list().get(0);
    assertEquals("False", c.getStatus());
    assertEquals(T1, c.getLastTransitionTime());
    assertEquals(T1, c.getLastUpdateTime());
  }

  @Test
  void settingTheSameConditionChangesNothing() {
    List<PoolCondition> first =
        new Conditions(List.of(), T1).set("Stopped", false, "Running", "m").list();
    assertEquals(first, new Conditions(first, T2).set("Stopped", false, "Running", "m").list());
  }

  @Test
  void aNewMessageMovesOnlyTheUpdateTime() {
    List<PoolCondition> first =
        new Conditions(List.of(), T1).set("AgentReady", false, "NoReadyReplica", "0 of 2").list();
    PoolCondition c =
        new Conditions(first, T2)
            .set("AgentReady", false, "NoReadyReplica", "0 of 3")
            .list()
            .get(0);
    assertEquals(T1, c.getLastTransitionTime());
    assertEquals(T2, c.getLastUpdateTime());
  }

  @Test
  void onlyAFlipMovesTheTransitionTime() {
    List<PoolCondition> first =
        new Conditions(List.of(), T1).set("Stopped", false, "Running", "m").list();
    List<PoolCondition> paused =
        new Conditions(first, T2).set("Stopped", true, "Paused", "p").list();
    assertEquals(T2, paused.get(0).getLastTransitionTime());
    List<PoolCondition> resumed =
        new Conditions(paused, T3).set("Stopped", false, "Running", "m").list();
    assertEquals(T3, resumed.get(0).getLastTransitionTime());
    assertEquals("Running", resumed.get(0).getReason());
  }

  @Test
  void otherConditionsAreKeptInOrder() {
    List<PoolCondition> two =
        new Conditions(List.of(), T1)
            .set("Registered", true, "R", "r")
            .set("Stopped", false, "Running", "m")
            .list();
    List<PoolCondition> after = new Conditions(two, T2).set("Stopped", true, "Paused", "p").list();
    assertEquals(
        List.of("Registered", "Stopped"), after.stream().map(PoolCondition::getType).toList());
    assertEquals(two.get(0), after.get(0));
  }
}
