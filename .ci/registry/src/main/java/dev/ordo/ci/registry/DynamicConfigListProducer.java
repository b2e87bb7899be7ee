package dev.ordo.ci.registry;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.context.ApplicationScoped;
import javax.enterprise.inject.Produces;

/** Stands in for the bean that Apicurio's config-index build extension would generate (its deployment
 *  artifact is not on Maven Central): the registry's dynamic settings are not used by Ordo's tests. */
@ApplicationScoped
public class DynamicConfigListProducer {
    @Produces
    @ApplicationScoped
    DynamicConfigPropertyList dynamicConfigPropertyList() {
        return new DynamicConfigPropertyList(List.of());
    }
}
