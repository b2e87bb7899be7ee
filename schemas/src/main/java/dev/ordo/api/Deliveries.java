package dev.ordo.api;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.Delivery;
import java.util.List;

/** Reading a record of {@code <cluster>.deliveries}: one leased item, several, or an outcome. */
public final class Deliveries {
  private Deliveries() {}

  /** The items a delivery hands out, in dispatch order; empty for an outcome. */
  public static List<DeliveredItem> items(Delivery delivery) {
    Object body = delivery.getBody();
    if (body instanceof DeliveredItem item) {
      return List.of(item);
    }
    if (body instanceof DeliveredItems many) {
      return many.getItems();
    }
    return List.of();
  }
}
