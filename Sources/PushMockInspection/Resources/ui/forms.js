import { h } from './dom.js';

// Form helpers shared by the devices and faults views.
export function field(name, labelText, control) {
  control.name = name;
  control.id = `field-${name}`;
  return h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control);
}

export function options(values) { return values.map((value) => h('option', { value }, value || '—')); }

export function formData(form) {
  return Object.fromEntries([...new FormData(form)].filter(([, value]) => value !== ''));
}
