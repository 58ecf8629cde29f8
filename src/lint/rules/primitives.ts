/**
 * Rules about prompts, resources and resource templates: clients show their descriptions to the user who picks a
 * prompt or attaches a resource, and models read a resource's description to decide whether to read it.
 */
import type { RawFinding, Rule } from '../types.js';

export const missingPrimitiveDescription: Rule = {
  id: 'missing-primitive-description',
  severity: 'warning',
  summary: 'a prompt, a prompt argument, a resource or a resource template without a description',
  check: (ctx) => {
    const out: RawFinding[] = [];
    const empty = (d: unknown) => typeof d !== 'string' || d.trim() === '';
    for (const prompt of ctx.model.prompts) {
      if (empty(prompt.definition.description)) {
        out.push({
          rule: 'missing-primitive-description',
          tools: [prompt.name],
          span: ctx.at.inItem(prompt, 'prompts', ['name']),
          message: `prompt "${prompt.name}" has no description`,
          hint: 'clients list prompts with their description when the user picks one: say what it is for',
        });
      }
      prompt.arguments.forEach((arg, i) => {
        if (!empty(arg.description)) return;
        out.push({
          rule: 'missing-primitive-description',
          tools: [prompt.name],
          span: ctx.at.inItem(prompt, 'prompts', ['arguments', i, 'name']),
          message: `argument "${arg.name}" of prompt "${prompt.name}" has no description`,
          hint: 'clients show it where the user fills the argument in: say what to give, with an example',
        });
      });
    }
    for (const resource of ctx.model.resources) {
      if (!empty(resource.definition.description)) continue;
      const what = resource.kind === 'resource' ? 'resource' : 'resource template';
      out.push({
        rule: 'missing-primitive-description',
        tools: [resource.name],
        span: ctx.at.inItem(resource, resource.kind === 'resource' ? 'resources' : 'resourceTemplates', ['name']),
        message: `${what} "${resource.name}" has no description`,
        hint: 'models and users decide whether to read a resource by its description: say what it holds',
      });
    }
    return out;
  },
};

export const undescribedTemplateVariable: Rule = {
  id: 'undescribed-template-variable',
  severity: 'warning',
  summary: 'a variable of a resource template that its `variables` do not describe',
  check: (ctx) =>
    ctx.model.resources.flatMap((r) =>
      r.variables
        .filter((v) => v.description === undefined || v.description.trim() === '')
        .map((v): RawFinding => ({
          rule: 'undescribed-template-variable',
          tools: [r.name],
          span: ctx.at.inItem(r, 'resourceTemplates', ['uriTemplate']),
          message: `variable "${v.name}" of resource template "${r.name}" is not described`,
          hint: `add variables: { ${v.name}: { description: … } } to say what it holds (clients show it when the user fills the template in)`,
        })),
    ),
};
